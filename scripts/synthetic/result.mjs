// A whole synthetic result.v1 document: machine, server, link, warnings, cells, and (for some) a
// run group. Marked synthetic where the format has room: every CPU model, the runner's version
// (`0.1.0-synthetic`), the cloud instance types; and it is only ever written outside data/.

import { environmentFingerprint } from '@redis-benchdb/result';
import { makeCell } from './cells.mjs';
import { rng } from './random.mjs';
import { pickLink, pickServer } from './servers.mjs';
import { PROFILES, SUITE_ID, SUITE_VERSION } from './suite.mjs';

export const SYNTHETIC_RUNNER_VERSION = '0.1.0-synthetic';
const NODE_VERSIONS = ['v20.19.0', 'v20.20.2', 'v22.11.0'];

/**
 * Result i of a plan. `slot` fixes what a run group must share (machine, and server or link), the
 * rest is drawn from the slot's own seed.
 */
export function makeResult(slot, machine, h) {
  const r = rng(slot.seed);
  const chosen = pickServer(rng(slot.serverSeed), machine);
  const link = pickLink(rng(slot.linkSeed), machine, slot.linkKind);
  const server = { ...chosen.server, local: link.sameHost };
  const profile = slot.profile;
  const setup = {
    serverSpeed: chosen.speed,
    serverThreads: chosen.threads,
    clientSpeed: machine.speed,
    rttUs: link.rttUs.p50Us,
    jitter: machine.jitter,
    runFactor: 1 + machine.jitter * r.normal(),
    latencySigma: machine.vm ? 0.3 + 0.2 * r.next() : 0.18 + 0.12 * r.next(),
    tailFraction: machine.vm ? 0.004 + 0.01 * r.next() : 0.001 + 0.003 * r.next(),
    tailSpan: machine.vm ? 6 + 14 * r.next() : 3 + 5 * r.next(),
    crossCheck: server.product !== 'dragonfly',
  };
  const cells = PROFILES[profile].map((def) => makeCell(r, def, setup, h));
  const seconds = cells.reduce(
    (s, c) => s + c.trialCount * (c.workload.durationSec + c.workload.warmupSec) + 1.2,
    5,
  );
  const environment = { client: machine.client, server, link };
  const doc = {
    schema: 'redis-benchdb/result.v1',
    runner: {
      name: 'redis-benchdb',
      version: SYNTHETIC_RUNNER_VERSION,
      nodeVersion: r.pick(NODE_VERSIONS),
      engineMode: 'lean-resp',
      threads: 1,
    },
    suite: { id: SUITE_ID, version: SUITE_VERSION, profile },
    startedAt: new Date(slot.startedAt).toISOString(),
    finishedAt: new Date(slot.startedAt + seconds * 1000).toISOString(),
    target: target(link, r),
    keyPrefix: `rbdb:${r.hex(6)}:`,
    environment: { fingerprint: environmentFingerprint(environment), ...environment, unknown: {} },
    warnings: [...runWarnings(machine.client, server, link, r), ...cellWarnings(cells)],
    cells,
    interrupted: false,
    incomplete: false,
    error: null,
    cleanup: {
      removedKeys: cells.reduce((s, c) => s + Math.min(c.workload.keyspaceSize, c.completed), 0),
      error: null,
    },
  };
  if (slot.group) doc.runGroup = { ...slot.group, label: groupLabel(slot.group.varies, server, link) };
  return doc;
}

function target(link, r) {
  if (link.kind === 'unix')
    return { host: '127.0.0.1', port: 6379, socket: '/tmp/redis.sock', tls: false, db: 0, resp3: false };
  const host = link.kind === 'tcp-network' ? `10.0.${r.int(0, 255)}.${r.int(1, 254)}` : '127.0.0.1';
  return { host, port: r.pick([6379, 6379, 6380, 7000]), socket: null, tls: false, db: 0, resp3: false };
}

function groupLabel(varies, server, link) {
  const parts = [`${server.product}-server ${server.version}`];
  if (server.ioThreads) parts.push(`io-threads ${server.ioThreads}`);
  if (varies.includes('transport')) parts.push(link.kind === 'unix' ? 'unix' : 'tcp');
  return parts.join(' · ');
}

/** The probe's run-wide warnings (packages/probe/src/warnings.ts), in short. */
function runWarnings(client, server, link, r) {
  const out = [];
  const add = (code, message) => out.push({ code, message, cell: null });
  const { kind, hypervisor, container } = client.virtualization;
  if (kind === 'vm' || kind === 'vm+container')
    add(
      'VM',
      `The client runs in a virtual machine (${hypervisor}): Redis is slower and its latency less stable under a hypervisor, so compare only with results from similar VMs.`,
    );
  if (container)
    add(
      'CONTAINER',
      `The client runs in a container (${container}): CPU quotas and cgroup limits can throttle or delay it.`,
    );
  if (client.thp.enabled === 'always')
    add(
      'THP_ALWAYS',
      "Transparent huge pages are set to 'always': Redis then suffers latency spikes after fork().",
    );
  if (client.swapUsedBytes > 0)
    add(
      'SWAP_IN_USE',
      `${Math.round(client.swapUsedBytes / 2 ** 20)} MiB of swap is in use: a benchmark machine must not swap.`,
    );
  if (client.cpuGovernor && client.cpuGovernor !== 'performance')
    add(
      'GOVERNOR_NOT_PERFORMANCE',
      `The CPU frequency governor is '${client.cpuGovernor}', not 'performance': runs are less reproducible.`,
    );
  if (server.persistence.save || server.persistence.appendonly)
    add(
      'PERSISTENCE_ON',
      'Persistence is on: fork() and disk writes during the run add latency and compete for CPU and I/O.',
    );
  if (link.sameHost)
    add(
      'SAME_HOST',
      'Client and server run on the same host: they compete for the same CPUs and caches, and no network latency is included.',
    );
  if (server.loglevel === 'verbose')
    add('DEBUG_LOGLEVEL', "The server logs at 'verbose' level: log lines cost time on the main thread.");
  if (link.sameHost && r.next() < 0.7)
    add(
      'NOT_PINNED',
      'Client and server were not pinned to separate CPUs: the scheduler may put them on one core.',
    );
  return out;
}

function cellWarnings(cells) {
  const out = [];
  for (const c of cells) {
    if (c.unstable)
      out.push({
        code: 'UNSTABLE',
        message: `Throughput varied by more than 10% between trials of this cell: trials vary by ${Math.round(c.opsPerSec.cv * 100)}% (CV).`,
        cell: c.label,
      });
    if (c.saturation.clientBound)
      out.push({
        code: 'CLIENT_BOUND',
        message:
          'The client, not the server, was the bottleneck in this cell: the throughput is a floor for the server, not its capacity.',
        cell: c.label,
      });
  }
  return out;
}
