// Issue 30 item 7 on the real service: list queries run off the event loop (a ReadPool thread), in
// bounded queues, so that 1,000 at once, or one address's burst within its rate limit, do not hold
// /api/v1/health or another address's reads. Main's code held health for 53 s here (1,000 list
// queries at once on a database of 1,000 synthetic results).
import http from 'node:http';
import { holdUnlessBusy } from '@redis-benchdb/testing';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { startCpuPressure } from './cpu-pressure.js';
import { post, type ServiceProcess, spawnService, submissions, tempDbPath } from './fixtures.js';
import { describeSamples, pollHealth } from './health-poller.js';

/** The issue's bound: health answers within 100 ms; here, of the service's own event-loop CPU time. */
const LOOP_CPU_BUDGET_MS = 100;
/** On a host where tasks wait for a CPU, a poll's CPU time takes in work interleaved with it (hostile.test.ts). */
const BUSY_BUDGET_FACTOR = 5;
const SEEDED = 300;

let dbPath: string;
beforeAll(async () => {
  dbPath = tempDbPath();
  const seed = await spawnService(dbPath);
  const url = `${seed.url}/api/v1/results`;
  const bodies = submissions(SEEDED);
  for (let i = 0; i < bodies.length; i += 20)
    await Promise.all(
      bodies.slice(i, i + 20).map(async (b) => expect((await post(url, b)).status).toBe(201)),
    );
  seed.child.kill('SIGTERM');
  await seed.exited;
});

const agents: http.Agent[] = [];
afterAll(() => {
  for (const a of agents) a.destroy();
});

/** GET `path` from `localAddress` on a connection of its own; resolves with the status and retry-after. */
function get(service: ServiceProcess, path: string, localAddress: string, agent: http.Agent) {
  const { hostname, port } = new URL(service.url);
  return new Promise<{ status: number | string; retryAfter?: string }>((resolve) => {
    const req = http.get({ host: hostname, port, path, localAddress, agent }, (res) => {
      res
        .resume()
        .on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: e.code ?? 'error' }));
  });
}

async function burst(service: ServiceProcess, n: number) {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  agents.push(agent);
  // Health from an address of its own: its polls, back to back, count against that address's limit
  // (every API route does), so the other reader below must not share it or it is 429 by the test's doing.
  const health = pollHealth({ url: service.url, pid: service.child.pid!, localAddress: '127.0.0.3' });
  const pressure = startCpuPressure();
  await new Promise((r) => setTimeout(r, 300));
  const reads = Promise.all(
    Array.from({ length: n }, () => get(service, '/api/v1/results?limit=100', '127.0.0.1', agent)),
  );
  // A third address's read, sent once the burst is in: it must be answered, not starved.
  await new Promise((r) => setImmediate(r));
  const other = get(service, '/api/v1/results?limit=100', '127.0.0.2', agent);
  const replies = await reads;
  const otherReply = await other;
  await new Promise((r) => setTimeout(r, 300));
  const samples = await health.stop();
  const host = pressure.stop();
  const statuses: Record<string, number> = {};
  for (const r of replies) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  const budget = host.busy ? BUSY_BUDGET_FACTOR * LOOP_CPU_BUDGET_MS : LOOP_CPU_BUDGET_MS;
  const blockedOver = (ms: number) =>
    samples
      .filter((s) => s[2] > ms)
      .map((s) => `${s[2].toFixed(0)} ms of CPU in a ${s[1].toFixed(0)} ms poll`);
  console.log(
    `${n} reads at once: ${JSON.stringify(statuses)}; another address's read ${otherReply.status}; health from another address: ${describeSamples(samples)}; ${host.figure}, budget ${budget} ms`,
  );
  return { replies, statuses, otherReply, samples, blocked: blockedOver(budget), blockedOver, host };
}

/** On a busy host the issue's own bound is tried too, and counted as a skipped claim when it fails there. */
function holdIssueBound(ctx: Pick<TestContext, 'task'>, b: Awaited<ReturnType<typeof burst>>): void {
  holdUnlessBusy(ctx, b.host, `health behind at most ${LOOP_CPU_BUDGET_MS} ms of event-loop CPU`, () =>
    expect(b.blockedOver(LOOP_CPU_BUDGET_MS)).toEqual([]),
  );
}

describe('reads that cannot starve the service', () => {
  it('1,000 list queries at once: each answered 200 or 503 BUSY with retry-after; health never waits behind 100 ms of the event loop', async ({
    task,
  }) => {
    const service = await spawnService(dbPath, ['--per-ip-per-minute', '1000000']);
    const b = await burst(service, 1000);
    const { replies, statuses, samples, blocked } = b;
    expect(Object.keys(statuses).sort()).toEqual(['200', '503']);
    for (const r of replies) if (r.status === 503) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(samples.length).toBeGreaterThan(10);
    expect(blocked).toEqual([]);
    holdIssueBound({ task }, b);
    service.child.kill('SIGTERM');
    await service.exited;
  });

  // 600 requests and polls from two addresses: over a minute at load average 20 on 2 cores (it timed
  // out at 60 s there), so its own timeout over the tier's 120 s (vitest.config.ts).
  it("one address's burst within its rate limit (600) delays neither another address's health nor its read", async ({
    task,
  }) => {
    const service = await spawnService(dbPath, ['--per-ip-per-minute', '600']);
    const b = await burst(service, 600);
    expect(b.statuses['200']).toBeGreaterThan(0);
    expect(b.otherReply.status).toBe(200);
    expect(b.blocked).toEqual([]);
    holdIssueBound({ task }, b);
    service.child.kill('SIGTERM');
    await service.exited;
  }, 300_000);
});
