// Hostile submissions against the real service (a separate process, a real SQLite file): every one
// answered with a 4xx in the error shape, the database unchanged, and health answering throughout.
// See hostile-bodies.ts for the bodies.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { openDatabase, readDocument, readEnvelope } from '@redis-benchdb/db';
import { verifyEnvelope } from '@redis-benchdb/result';
import { holdUnlessBusy } from '@redis-benchdb/testing';
import { beforeAll, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import { type HostLoad, startCpuPressure } from './cpu-pressure.js';
import {
  body,
  otherKey,
  otherRun,
  type ServiceProcess,
  spawnService,
  tempDbPath,
  variant,
} from './fixtures.js';
import {
  describeSamples,
  type Polled,
  percentile,
  pollHealth,
  type Sample,
  type Window,
  worstBodies,
} from './health-poller.js';
import { type HostileBody, hostileBodies } from './hostile-bodies.js';

// Built once, before any clock runs (~1 s: the bombs are compressed here).
const BODIES = hostileBodies();

interface Answer {
  status: number;
  json: { error?: { code?: unknown; message?: unknown } } | undefined;
}

/** POST over a fresh connection with node:http, which sends any bytes and any headers it is given. */
function submit(url: string, h: HostileBody): Promise<Answer> {
  const u = new URL('/api/v1/results', url);
  const payload = typeof h.body === 'string' ? Buffer.from(h.body, 'utf8') : h.body;
  const headers: Record<string, string | number> = { 'content-length': payload.length, ...h.headers };
  if (h.contentType !== null) headers['content-type'] = h.contentType ?? 'application/json';
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(u, { method: 'POST', headers, agent: false }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8').on('data', (s: string) => {
        text += s;
      });
      res.on('end', () => {
        let json: Answer['json'];
        try {
          json = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    // A server that answers 413 before reading the whole body closes on the rest: a write error
    // after the answer is expected.
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    req.end(payload);
  });
}

/** Every table's rows, hashed: equal digests, equal databases. */
function digest(dbPath: string): string {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    const hash = createHash('sha256');
    const tables = db.sqlite
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    for (const t of tables) {
      hash.update(`\0${t}\0`);
      // By rowid, or by the primary key of a table WITHOUT ROWID (key_signers).
      const pk = (db.sqlite.pragma(`table_info("${t}")`) as { name: string; pk: number }[])
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => `"${c.name}"`);
      const withoutRowid = /without\s+rowid/i.test(
        db.sqlite.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(t) as string,
      );
      const order = withoutRowid ? pk.join(', ') : 'rowid';
      for (const row of db.sqlite.prepare(`SELECT * FROM "${t}" ORDER BY ${order}`).raw().iterate())
        hash.update(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
    }
    return hash.digest('hex');
  } finally {
    db.close();
  }
}

const now = () => performance.timeOrigin + performance.now();

/**
 * Health must answer within 100 ms while the bodies are refused: a figure for a quiet machine
 * (docs/BENCHMARKS.md). These tests share 2 cores with other work, where a poll's wall time says more
 * about the machine than about the service, so what is held to a fixed figure is the service's
 * main-thread CPU time during each poll: the work on the event loop that health waited behind, which
 * a busy machine does not inflate. Every body's parsing, checks and signature run on worker threads,
 * and one at a time a poll waited behind 5 ms at most (receiving a 4 MiB body, at a load average of
 * 13 to 19). While they ran on the event loop, polls waited behind 41 ms (the 1 MB CPU model) and
 * 558 ms (4 MiB of trials) of it.
 *
 * With 8 bodies in flight a slow poll also overlaps the reading and answering of many others, work
 * interleaved with it rather than ahead of it: up to 16 ms of it was seen, so there the budget is
 * doubled. On the old code the 4 MiB body still held a poll for 602 ms of CPU.
 */
const LOOP_CPU_BUDGET_MS = 20;

/**
 * On a busy host (CPU pressure above BUSY_CPU_PRESSURE) a poll lasts longer and its window takes in
 * more of the work interleaved with it: with the fix, polls saw 42–46 ms at a load average of 14–20.
 * There the budget is 10 times the quiet one: it still fails a body held on the event loop, as the
 * old code held the 4 MiB body for 558–602 ms.
 */
const BUSY_BUDGET_FACTOR = 10;
const budgetFor = (busy: boolean, ms = LOOP_CPU_BUDGET_MS) => (busy ? BUSY_BUDGET_FACTOR * ms : ms);

/** On a busy host the quiet budget is tried too, and counted as a skipped claim when it fails there. */
const holdQuietBudget = (ctx: Pick<TestContext, 'task'>, host: HostLoad, check: () => void) =>
  holdUnlessBusy(ctx, host, 'the quiet CPU budget for every health poll', check);

/**
 * The wall time is held to a bound scaled by an idle baseline taken moments before on the same
 * machine: max(250 ms, 10 × its p99, 3 × its max). Load slows both alike; a service that stops
 * answering (a restart, a hang) still fails it.
 */
function healthBoundMs(idle: Baseline): number {
  return Math.max(250, 10 * idle.p99Ms, 3 * idle.maxMs);
}

interface Baseline {
  p99Ms: number;
  maxMs: number;
}

async function idleHealth(service: Polled): Promise<Baseline> {
  const poll = pollHealth(service);
  // 3 s of back-to-back polls (a few hundred on a quiet machine).
  await new Promise((r) => setTimeout(r, 3000));
  const latencies = (await poll.stop()).map((x) => x[1]);
  return { p99Ms: percentile(latencies, 0.99), maxMs: Math.max(...latencies) };
}

const describePressure = (h: { pressure: number | null; busy: boolean }) =>
  h.pressure === null
    ? 'CPU pressure unknown (no PSI): held to the quiet budget'
    : `CPU pressure ${h.pressure.toFixed(2)}: ${h.busy ? `busy, held to ${BUSY_BUDGET_FACTOR}x the CPU budget` : 'quiet'}`;

const describeBaseline = (idle: Baseline) =>
  `idle p99 ${idle.p99Ms.toFixed(1)} ms, max ${idle.maxMs.toFixed(1)} ms, bound ${healthBoundMs(idle).toFixed(0)} ms`;

/** The polls that waited behind more main-thread CPU time than the budget, named by the bodies in flight. */
function blockedPolls(samples: Sample[], windows: Window[], budgetMs = LOOP_CPU_BUDGET_MS): string[] {
  return samples
    .filter((x) => x[2] > budgetMs)
    .map(([at, ms, cpu]) => {
      const during = windows.filter((w) => at + ms >= w.from && at <= w.to).map((w) => w.name);
      return `${cpu.toFixed(0)} ms of CPU (a ${ms.toFixed(0)} ms poll) while ${during.join(', ') || 'no body'} was in flight`;
    });
}

const polled = (s: ServiceProcess): Polled => ({ url: s.url, pid: s.child.pid! });

/** The service with two results stored (one per key), and its digest. */
async function seeded(dbPath: string): Promise<ServiceProcess> {
  const service = await spawnService(dbPath, [], { sharedByTests: true });
  for (const b of [body(variant(1)), body(otherRun(2), otherKey)]) {
    const a = await submit(service.url, { name: 'seed', body: b });
    expect(a.status).toBe(201);
  }
  return service;
}

function expectRefused(h: HostileBody, a: Answer): void {
  const why = `${h.name}: ${a.status} ${JSON.stringify(a.json).slice(0, 300)}`;
  expect(a.status >= 400 && a.status < 500, why).toBe(true);
  expect(typeof a.json?.error?.code, why).toBe('string');
  expect(typeof a.json?.error?.message, why).toBe('string');
  if (h.code) expect(a.json?.error?.code, why).toBe(h.code);
}

describe(`${BODIES.length} hostile submissions, one at a time`, () => {
  const dbPath = tempDbPath();
  let service: ServiceProcess;
  let idle: Baseline;
  let health: ReturnType<typeof pollHealth>;
  let pressure: ReturnType<typeof startCpuPressure>;
  const windows: Window[] = [];

  beforeAll(async () => {
    service = await seeded(dbPath);
    idle = await idleHealth(polled(service));
    health = pollHealth(polled(service));
    pressure = startCpuPressure();
  });

  // Only on failure: a body that hangs the service (an unbounded histogram, on a branch without the
  // fix) must fail its own test, not every one after it. Not an assertion: a slow answer restarts
  // the service on the same file, and the health test still records the wait.
  beforeEach(async () => {
    const alive = await fetch(`${service.url}/api/v1/health`, { signal: AbortSignal.timeout(30_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (alive) return;
    service.child.kill('SIGKILL');
    await service.exited;
    service = await spawnService(dbPath, [], { sharedByTests: true });
    health.follow(polled(service));
  });

  // Each body is held to the database as it was just before it: one that gets stored fails its own
  // test, not the ones after it.
  it.each(BODIES.map((h) => [h.name, h] as const))('%s: 4xx, nothing stored', async (_name, h) => {
    const before = digest(dbPath);
    const from = now();
    const answer = await submit(service.url, h);
    windows.push({ name: h.name, from, to: now() });
    expectRefused(h, answer);
    expect(digest(dbPath)).toBe(before);
  });

  it(`health never waited behind more than ${LOOP_CPU_BUDGET_MS} ms of event-loop CPU, and kept answering`, async ({
    task,
  }) => {
    const samples = await health.stop();
    const host = pressure.stop();
    const max = Math.max(...samples.map((x) => x[1]));
    console.log(
      `health during ${BODIES.length} hostile bodies: ${describeSamples(samples)} (${describeBaseline(idle)}); ${describePressure(host)}; worst while: ${worstBodies(samples, windows)}`,
    );
    expect(samples.length).toBeGreaterThan(BODIES.length);
    expect(blockedPolls(samples, windows, budgetFor(host.busy))).toEqual([]);
    expect(max).toBeLessThan(healthBoundMs(idle));
    holdQuietBudget({ task }, host, () => expect(blockedPolls(samples, windows)).toEqual([]));
  });

  it('stores nothing whose bytes differ from what verify accepts', () => {
    const db = openDatabase(dbPath, { readonly: true });
    try {
      const rows = (db.sqlite.prepare('SELECT id FROM results').pluck().all() as string[]).map((id) => ({
        id,
        envelope: readEnvelope(db, id)!,
        document: readDocument(db, id)!,
      }));
      // The two seeds at least; any more is a body that was not refused, and fails its own test.
      expect(rows.length).toBeGreaterThanOrEqual(2);
      for (const row of rows) {
        const env = JSON.parse(row.envelope) as { payload: string };
        expect(verifyEnvelope(env).ok, row.id).toBe(true);
        // The bytes verify checked are the payload as UTF-8: they must be the stored document's own,
        // with no lone surrogate turned into U+FFFD on the way.
        expect(Buffer.from(env.payload, 'utf8').toString('utf8')).toBe(env.payload);
        expect(row.document).toBe(env.payload);
        expect(createHash('sha256').update(env.payload, 'utf8').digest('hex')).toBe(row.id);
      }
    } finally {
      db.close();
    }
  });
});

describe('all hostile submissions at once, 8 in flight', () => {
  it('refuses every one, stores nothing, and health keeps answering', async ({ task }) => {
    const dbPath = tempDbPath();
    const service = await seeded(dbPath);
    const before = digest(dbPath);
    const idle = await idleHealth(polled(service));
    const health = pollHealth(polled(service));
    const pressure = startCpuPressure();
    const answers: Answer[] = [];
    const windows: Window[] = [];
    let next = 0;
    const worker = async () => {
      while (next < BODIES.length) {
        const i = next++;
        const from = now();
        answers[i] = await submit(service.url, BODIES[i]!);
        windows.push({ name: BODIES[i]!.name, from, to: now() });
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const samples = await health.stop();
    const host = pressure.stop();
    const max = Math.max(...samples.map((x) => x[1]));
    console.log(
      `health during ${BODIES.length} hostile bodies 8 at a time: ${describeSamples(samples)} (${describeBaseline(idle)}); ${describePressure(host)}; worst while: ${worstBodies(samples, windows)}`,
    );
    const failures = BODIES.flatMap((h, i) => {
      try {
        expectRefused(h, answers[i]!);
        return [];
      } catch (e) {
        return [(e as Error).message.split('\n')[0]];
      }
    });
    expect(failures).toEqual([]);
    expect(digest(dbPath)).toBe(before);
    expect(blockedPolls(samples, windows, budgetFor(host.busy, 2 * LOOP_CPU_BUDGET_MS))).toEqual([]);
    // With 8 bodies in flight a poll can queue behind the reads and copies of several of them.
    expect(max).toBeLessThan(2 * healthBoundMs(idle));
    holdQuietBudget({ task }, host, () =>
      expect(blockedPolls(samples, windows, 2 * LOOP_CPU_BUDGET_MS)).toEqual([]),
    );
  });
});
