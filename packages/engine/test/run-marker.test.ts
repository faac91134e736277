import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BenchSession,
  ControlPlane,
  DEFAULT_TARGET,
  findRuns,
  type LaunchedServer,
  markerHost,
  startServer,
  type Target,
} from '../dist/index.js';

// The run marker against a real redis-server: which prefixes cleanup may consider a run's, and
// when it counts that run as still going.

let server: LaunchedServer;
let target: Target;
let redis: Redis;
let control: ControlPlane;

beforeAll(async () => {
  server = await startServer();
  expect(server.port).not.toBe(6379);
  target = { ...DEFAULT_TARGET, host: server.host, port: server.port };
  redis = new Redis({
    port: server.port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  await redis.connect();
  control = await ControlPlane.connect(target);
});

afterAll(async () => {
  await control?.close();
  redis?.disconnect();
  await server?.stop();
});

/** A marker as another machine's run would leave it. */
async function foreignRun(id: string, keys: number, alive: boolean): Promise<void> {
  await redis.hset(`rbdb:${id}:__run__`, {
    runId: id,
    host: `not-${hostname()}`,
    pid: '1',
    startedAt: '2026-01-01T00:00:00.000Z',
    runner: 'redis-benchdb 0.2.0',
  });
  if (alive) await redis.psetex(`rbdb:${id}:__alive__`, 60_000, '1');
  for (let i = 0; i < keys; i++) await redis.set(`rbdb:${id}:key:${i}`, 'v');
}

describe('findRuns', () => {
  it('finds marked prefixes only, counts their keys, and tells a running run from an ended one', async () => {
    await foreignRun('aaaaa1', 3, false);
    await foreignRun('aaaaa2', 2, true);
    await redis.set('rbdb:bbbbbb:x', 'no marker');
    await redis.hset('rbdb:cccccc:__run__', { runId: 'dddddd', runner: 'redis-benchdb 0.2.0' });
    await redis.hset('rbdb:eeeeee:__run__', { runId: 'eeeeee', runner: 'something else' });
    await redis.set('rbdb:ffffff:__run__', 'a string');

    const runs = await findRuns(control);
    expect(runs.map((r) => [r.marker.prefix, r.keys, r.running])).toEqual([
      ['rbdb:aaaaa1:', 3, false],
      ['rbdb:aaaaa2:', 2, true],
    ]);
    expect(runs[0]!.marker).toMatchObject({ runId: 'aaaaa1', pid: 1, runner: 'redis-benchdb 0.2.0' });
    expect(runs[0]!.countComplete).toBe(true);
    await redis.flushdb();
  });

  it("a session's marker: running while it lives; a stopped cleanup keeps the marker; cleanup removes it last", async () => {
    const s = await BenchSession.open(target);
    try {
      await s.markStart('redis-benchdb test');
      for (let i = 0; i < 12_000; i++) await redis.set(`${s.prefix}k${i}`, 'v');
      const [mine] = await findRuns(control);
      expect(mine).toMatchObject({ keys: 12_000, running: true });
      // The machine is named by a hash: the marker, readable by anyone with the server's keys, never holds its name.
      expect(mine).toMatchObject({ thisHost: true });
      expect(mine!.marker).toMatchObject({
        host: markerHost(),
        pid: process.pid,
        runner: 'redis-benchdb test',
      });
      expect(Object.values(await redis.hgetall(`${s.prefix}__run__`))).not.toContain(hostname());

      // Stopped before any batch: the alive key goes (the run is over), data and marker stay.
      const stopped = await s.removeKeys(AbortSignal.abort());
      expect(stopped).toEqual({ removed: 0, stopped: true });
      expect(await redis.exists(`${s.prefix}__alive__`)).toBe(0);
      const [left] = await findRuns(control);
      expect(left).toMatchObject({ keys: 12_000, running: false });

      expect(await s.cleanup()).toBe(12_000);
      expect(await redis.dbsize()).toBe(0);
    } finally {
      await s.close();
    }
  });
});
