import { afterEach, describe, expect, it } from 'vitest';
import {
  BenchSession,
  type CellOptions,
  DEFAULT_CELL_OPTIONS,
  DEFAULT_TARGET,
  type LaunchedServer,
  type LaunchOptions,
  type LocalCluster,
  startLocalCluster,
  startServer,
  type Target,
} from '../dist/index.js';

// A server that stops answering, and one that answers mostly with errors: each test starts its
// own redis-server on a free port and stops it (SIGSTOP) or fills it (maxmemory) by itself. The
// stops are sent by pid, once the cell's progress shows load flowing, and always undone
// (SIGCONT) before the server is stopped.

const stopped = new Set<number>();
const toStop: { stop(): Promise<void> }[] = [];
const sessions: BenchSession[] = [];

afterEach(async () => {
  for (const pid of stopped) resume(pid);
  await Promise.all(sessions.splice(0).map((s) => s.close().catch(() => {})));
  await Promise.all(toStop.splice(0).map((s) => s.stop()));
});

function pause(pid: number): void {
  process.kill(pid, 'SIGSTOP');
  stopped.add(pid);
}

function resume(pid: number): void {
  if (!stopped.delete(pid)) return;
  try {
    process.kill(pid, 'SIGCONT');
  } catch {
    // already gone
  }
}

async function server(opts: LaunchOptions = {}): Promise<{ server: LaunchedServer; target: Target }> {
  const s = await startServer(opts);
  toStop.push(s);
  expect(s.port).not.toBe(6379);
  return { server: s, target: { ...DEFAULT_TARGET, host: s.host, port: s.port } };
}

async function open(target: Target): Promise<BenchSession> {
  const s = await BenchSession.open(target);
  sessions.push(s);
  return s;
}

const cell = (o: Partial<CellOptions>): CellOptions => ({ ...DEFAULT_CELL_OPTIONS, connections: 10, ...o });

describe('reply deadline', () => {
  it('ends a cell as incomplete when the server stops answering, keeping what was measured', async () => {
    const { server: s, target } = await server();
    const session = await open({ ...target, replyTimeoutSec: 2 });
    const started = performance.now();
    const r = await session.runCell(cell({ test: 'GET', requests: 5_000_000 }), {
      onProgress: (done) => {
        if (done > 0 && !stopped.has(s.pid)) pause(s.pid);
      },
    });
    const tookSec = (performance.now() - started) / 1000;
    expect(stopped.has(s.pid)).toBe(true);
    expect(r.incomplete).toBe(true);
    expect(r.incompleteReason).toBe('reply-timeout');
    expect(r.error).toMatch(
      new RegExp(
        `server at 127\\.0\\.0\\.1:${s.port} stopped answering: no reply for [\\d.]+ s with \\d+ requests? outstanding`,
      ),
    );
    expect(r.error).toMatch(/--timeout/);
    expect(r.completed).toBeGreaterThan(0);
    expect(r.completed).toBeLessThan(5_000_000);
    expect(r.stall!.maxGapMs).toBeGreaterThanOrEqual(2000);
    expect(r.crossCheck.status).toBe('unavailable');
    // The run ended by itself: the stop plus the deadline, the INFO after it (same deadline), not minutes.
    expect(tookSec).toBeLessThan(60);
  });

  it('keeps a short stall in the latency figures and reports it, and the cell completes', async () => {
    const { server: s, target } = await server();
    const session = await open({ ...target, replyTimeoutSec: 10 });
    let resumed: Promise<void> | null = null;
    const r = await session.runCell(cell({ test: 'GET', requests: undefined, durationSec: 4 }), {
      onProgress: (done) => {
        if (done > 0 && resumed === null) {
          pause(s.pid);
          // The stall's length is the fault being injected, not a wait for a result.
          resumed = new Promise((ok) =>
            setTimeout(() => {
              resume(s.pid);
              ok();
            }, 1500),
          );
        }
      },
    });
    await resumed;
    expect(resumed).not.toBeNull();
    expect(r.incomplete).toBe(false);
    expect(r.error).toBeNull();
    expect(r.stall).not.toBeNull();
    expect(r.stall!.maxGapMs).toBeGreaterThanOrEqual(1000);
    // A request outstanding through the whole wait: the longest latency covers the gap.
    expect(r.latencyUs.maxUs).toBeGreaterThanOrEqual(r.stall!.maxGapMs * 1000 * 0.99);
    expect(r.crossCheck.status).toBe('match');
  });

  it('reports no error replies when every reply succeeds', async () => {
    const { target } = await server();
    const session = await open(target);
    const r = await session.runCell(cell({ test: 'SET', requests: 20_000 }));
    expect(r.incomplete).toBe(false);
    expect(r.incompleteReason).toBeNull();
    expect(r.errorReplies).toBeNull();
  });
});

describe('error replies', () => {
  it('counts OOM replies apart from successes, with their share and an example', async () => {
    const { target } = await server({ config: ['maxmemory 2mb', 'maxmemory-policy noeviction'] });
    const session = await open(target);
    const r = await session.runCell(
      cell({ test: 'SET', requests: 50_000, valueSizeBytes: 1024, keyspaceSize: 1_000_000 }),
    );
    expect(r.incomplete).toBe(false);
    expect(r.errors.OOM).toBeGreaterThan(25_000);
    expect(r.errorReplies!.count).toBe(r.errors.OOM);
    expect(r.errorReplies!.ratio).toBeGreaterThan(0.5);
    expect(r.errorReplies!.ratio).toBeCloseTo(r.errors.OOM! / r.completed, 5);
    expect(r.errorReplies!.example).toMatch(/^OOM command not allowed/);
    expect(r.errorReplies!.successOpsPerSec).toBeLessThan(r.opsPerSec * (1 - r.errorReplies!.ratio) + 1);
  });
});

describe('cluster reply deadline', () => {
  let cluster: LocalCluster | null = null;
  afterEach(async () => {
    for (const n of cluster?.nodes ?? []) resume(n.server.pid);
    await cluster?.stop();
    cluster = null;
  });

  it('a node socket that gets no reply ends the cell, naming the node, while the others answer', async () => {
    cluster = await startLocalCluster({ primaries: 3 });
    const target: Target = {
      ...DEFAULT_TARGET,
      port: cluster.nodes[0]!.port,
      cluster: true,
      replyTimeoutSec: 2,
    };
    const session = await open(target);
    const victim = cluster.primaries[2]!;
    const r = await session.runCell(cell({ test: 'SET', requests: 5_000_000, keyspaceSize: 100_000 }), {
      onProgress: (done) => {
        if (done > 0 && !stopped.has(victim.server.pid)) pause(victim.server.pid);
      },
    });
    expect(r.incomplete).toBe(true);
    expect(r.incompleteReason).toBe('reply-timeout');
    expect(r.error).toContain(`cluster node 127.0.0.1:${victim.port} stopped answering`);
    expect(r.completed).toBeGreaterThan(0);
  });
});
