// What each of N results will be, decided up front from the seed: which machine ran it, when, with
// which profile, and which results form a run group (one invocation, several servers or transports).
// Every worker computes the same plan and generates its share of it.

import { fleet } from './machines.mjs';
import { rng, seedFor } from './random.mjs';

const DAY_MS = 24 * 3600 * 1000;
// A fixed end, so one seed gives the same documents tomorrow; pulled back if the clock is earlier.
const LATEST = Date.parse('2026-11-01T00:00:00Z');
const SPAN_MS = 700 * DAY_MS;

export function plan(seed, count) {
  const machines = fleet(seed);
  const r = rng(seedFor(seed, 0x91a7));
  const end = Math.min(LATEST, Date.now() - DAY_MS);
  const slots = [];
  while (slots.length < count) {
    // A few machines submit a lot, most a few times (u^1.6 skews towards the low indexes).
    const machineIdx = Math.floor(machines.length * r.next() ** 1.6);
    const machine = machines[machineIdx];
    const profile = r.next() < 0.25 ? 'full' : 'quick';
    const at = end - SPAN_MS * r.next() ** 0.7; // more results lately, as a project grows
    const left = count - slots.length;
    const grouped = left >= 2 && r.next() < 0.05;
    const size = grouped ? Math.min(left, r.int(2, 4)) : 1;
    const varies = grouped && !machine.darwin && r.next() < 0.3 ? 'transport' : 'server';
    const groupId = grouped ? r.hex(16) : null;
    const serverSeed = r.int(0, 2 ** 31);
    const linkSeed = r.int(0, 2 ** 31);
    for (let index = 0; index < size; index++) {
      const i = slots.length;
      const transport = varies === 'transport';
      slots.push({
        seed: seedFor(seed, i, 1),
        serverSeed: grouped && transport ? serverSeed : seedFor(seed, i, 2),
        linkSeed: grouped && !transport ? linkSeed : seedFor(seed, i, 3),
        linkKind: grouped && transport ? (index % 2 ? 'unix' : 'tcp-loopback') : null,
        machineIdx,
        profile,
        // Group members ran one after another: a quick run takes ~3 minutes, a full one ~15.
        startedAt: Math.round(at + index * (profile === 'full' ? 15 : 3) * 60_000),
        group: grouped ? { id: groupId, index, size, varies: [varies] } : null,
        receivedDelayMs: r.int(5_000, 3_600_000),
      });
    }
  }
  return { machines, slots };
}
