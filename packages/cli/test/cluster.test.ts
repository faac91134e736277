import { type LocalCluster, startLocalCluster } from '@redis-benchdb/engine';
import { type ResultV1, validateResult } from '@redis-benchdb/result';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  describeResult,
  parseDoc,
  removeTempDirs,
  runCli,
  spawnCli,
  stopServers,
  testServer,
  waitFor,
} from './helpers/cli.js';

// `run --cluster` end to end against a 3-primary cluster of local redis-servers on free ports:
// the result validates, records the topology, and every cell's counts hold over the nodes.

let cluster: LocalCluster;
let port: string;

beforeAll(async () => {
  assertBuilt();
  cluster = await startLocalCluster({ primaries: 3 });
  port = String(cluster.nodes[1]!.port);
});

afterAll(async () => {
  await cluster?.stop();
  await stopServers();
  await removeTempDirs();
});

/** Asks every primary in turn, each over a connection of its own (never through the cluster client). */
async function onEachPrimary<T>(ask: (redis: Redis) => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (const p of cluster.primaries) {
    const redis = new Redis({
      port: p.port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on('error', () => {});
    await redis.connect();
    try {
      answers.push(await ask(redis));
    } finally {
      redis.disconnect();
    }
  }
  return answers;
}

describe('run --cluster', () => {
  let doc: ResultV1;
  let stderr: string;

  beforeAll(async () => {
    const flags = ['-t', 'set,get,mset', '-n', '3000', '-r', '1000', '-c', '4', '-P', '4', '--preload'];
    const r = await runCli(['run', '-p', port, '--cluster', ...flags, '--json']);
    expect(r.code, describeResult(r)).toBe(0);
    doc = parseDoc(r.stdout);
    stderr = r.stderr;
  });

  it('writes a valid result that records the topology', () => {
    const valid = validateResult(doc);
    expect(valid.ok, JSON.stringify(valid)).toBe(true);
    const t = doc.target.cluster!;
    expect(t).toMatchObject({ discoveredBy: 'CLUSTER SHARDS', slotsCovered: 16384 });
    expect(t.nodes.map((n) => n.port).sort()).toEqual(cluster.primaries.map((n) => n.port).sort());
    for (const n of t.nodes) {
      const built = cluster.nodes.find((b) => b.port === n.port)!;
      expect(n).toMatchObject({ id: built.id, role: 'primary', host: '127.0.0.1', slotRanges: 1 });
      expect(n.version).toBe(built.server.version);
    }
    expect(t.nodes.reduce((a, n) => a + n.slots, 0)).toBe(16384);
    expect(doc.environment.server.mode).toBe('cluster');
  });

  it('every request succeeds, counted by commandstats summed over the primaries', () => {
    expect(doc.cells.map((c) => c.label)).toEqual(['SET', 'GET', 'MSET']);
    for (const c of doc.cells) {
      expect(c.errors, c.label).toEqual({});
      expect(c.completed, c.label).toBe(3000);
      expect(c.redirects, c.label).toEqual({ moved: 0, ask: 0 });
      expect(c.trials[0]!.redirects, c.label).toEqual({ moved: 0, ask: 0 });
      expect(c.crossCheck, c.label).toMatchObject({ status: 'match', observed: c.crossCheck.expected });
    }
    expect(doc.cells.find((c) => c.label === 'GET')!.hitRatio).toBe(1);
    expect(doc.incomplete).toBe(false);
    expect(doc.cleanup.error).toBeNull();
    expect(stderr).not.toMatch(/error/i);
  });

  it('removes its keys from every primary', async () => {
    expect(await onEachPrimary((redis) => redis.keys(`${doc.keyPrefix}*`))).toEqual([[], [], []]);
  });

  it('says in text mode that it routes over the cluster', async () => {
    const r = await runCli(['run', '-p', port, '--cluster', '-t', 'set', '-n', '2000', '-r', '100', '-q']);
    expect(r.code, describeResult(r)).toBe(0);
    expect(r.stderr).toMatch(
      /cluster: 3 primaries serving 16384 of 16384 slots \(version [\d.]+; from CLUSTER SHARDS\)/,
    );
  });
});

describe('run --cluster --slo', () => {
  /** SET calls served by each primary, from its own commandstats. */
  const setCalls = () =>
    onEachPrimary(async (redis) =>
      Number(/cmdstat_set:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0),
    );

  it('searches over the cluster: every step is routed to all primaries and recorded, and the answer or its reason is printed', async () => {
    const before = await setCalls();
    // A loose objective and a short budget: the test holds the search's shape, not a figure.
    const flags = ['-t', 'set', '-r', '1000', '-c', '6', '--slo', 'p99<=50ms', '--slo-budget', '8'];
    const r = await runCli(['run', '-p', port, '--cluster', ...flags, '--no-store', '--json']);
    expect(r.code, describeResult(r)).toBe(0);
    const doc = parseDoc(r.stdout);
    expect(validateResult(doc).ok).toBe(true);
    expect(doc.environment.server.mode).toBe('cluster');
    const cell = doc.cells[0]!;
    expect(cell.label).toBe('SET p99<=50ms');
    const search = cell.trials[0]!.sloSearch!;
    expect(search.steps.length).toBeGreaterThan(0);
    for (const s of search.steps) {
      expect(s.responseHistogram.length).toBeGreaterThan(0);
      expect(s.achievedOpsPerSec).toBeGreaterThan(0);
    }
    expect(r.stderr).toMatch(
      /SET p99<=50ms: (max [\d,]+ ops\/s at p99<=50ms|no answer at p99<=50ms: [a-z-]+: )/,
    );
    const after = await setCalls();
    // Every primary served part of every search: its keys spread over all the slots.
    for (const [i, n] of after.entries()) expect(n, `primary ${i}`).toBeGreaterThan(before[i]!);
    expect(doc.cleanup.error).toBeNull();
  });
});

describe('run --cluster refuses what a cluster cannot do, before any load', () => {
  it.each([
    [['-s', '/tmp/none.sock'], /drop -s/],
    [['-p', 'PORT', '--dbnum', '2'], /database 0 only: drop --dbnum 2/],
    [['-p', 'PORT', '-t', 'mset', '-r', '5000000'], /key space of at most 4194304 keys \(-r\)/],
  ])('%j', async (args, message) => {
    const r = await runCli(['run', '--cluster', '-t', 'set', ...args.map((a) => (a === 'PORT' ? port : a))]);
    expect(r.code, describeResult(r)).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('a server that is not a cluster node gets the fix', async () => {
    const plain = await testServer();
    const r = await runCli(['run', '-p', String(plain.port), '--cluster', '-t', 'set', '-n', '100']);
    expect(r.code, describeResult(r)).not.toBe(0);
    expect(r.stderr).toMatch(/not a cluster node.*drop --cluster/);
  });

  it('--help documents the flag', async () => {
    const r = await runCli(['run', '--help']);
    expect(r.stdout).toMatch(/--cluster/);
    expect(r.stdout).toMatch(/Redis Cluster \(--cluster\)/);
  });
});

describe('cleanup --cluster', () => {
  /** Keys on every primary, summed. */
  async function keysOnPrimaries(): Promise<number> {
    return (await onEachPrimary((redis) => redis.dbsize())).reduce((a, b) => a + b, 0);
  }

  it('removes what a SIGKILLed run left on every primary', async () => {
    const before = await keysOnPrimaries();
    const run = spawnCli(
      ['run', '-p', port, '--cluster', '-t', 'set', '-r', '100000', '-c', '4', '--duration', '60'],
      {},
    );
    await waitFor(
      async () => {
        if (run.child.exitCode !== null) throw new Error(`the run ended early:\n${run.stderr()}`);
        return (await keysOnPrimaries()) > before + 3000;
      },
      () => `the run to write keys (stderr so far: ${run.stderr()})`,
    );
    const prefix = /keys under (rbdb:[0-9a-f]{6}:)\*/.exec(run.stderr())![1]!;
    run.child.kill('SIGKILL');
    await run.done;
    const dry = await runCli(['cleanup', '-p', port, '--cluster', '--dry-run']);
    expect(dry.code, describeResult(dry)).toBe(0);
    expect(dry.stdout).toContain(`${prefix}*`);
    const r = await runCli(['cleanup', '-p', port, '--cluster', '--yes']);
    expect(r.code, describeResult(r)).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`removed [\\d,]+ keys under ${prefix}\\*`));
    expect(await keysOnPrimaries()).toBe(before);
  });
});
