import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BenchSession,
  type CellOptions,
  type CellResult,
  ClusterControl,
  ControlPlane,
  DEFAULT_CELL_OPTIONS,
  DEFAULT_TARGET,
  keySlot,
  type LocalCluster,
  startLocalCluster,
  startServer,
  type Target,
} from '../dist/index.js';
import { createKeyGenerator } from '../dist/keys.js';
import { makeTestCertificates } from './helpers/tls.js';

// Cluster mode against a real 3-primary cluster (plus one replica) of local redis-servers on free
// ports, torn down at the end. Loads are small: a few thousand requests, or 3 s on 5 connections.

let cluster: LocalCluster;
let target: Target;
/** One ioredis client per primary, for checking what each node holds and counted. */
let nodes: { redis: Redis; id: string; slots: [number, number]; port: number }[];
/** Servers a test added to the cluster (scale-out), stopped at the end. */
const extraServers: { stop(): Promise<void> }[] = [];
const sessions: BenchSession[] = [];

beforeAll(async () => {
  cluster = await startLocalCluster({ primaries: 3, replicas: 1 });
  for (const n of cluster.nodes) expect(n.port).not.toBe(6379);
  target = { ...DEFAULT_TARGET, port: cluster.nodes[0]!.port, cluster: true };
  nodes = [];
  for (const p of cluster.primaries) {
    const redis = new Redis({
      port: p.port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on('error', () => {});
    await redis.connect();
    nodes.push({ redis, id: p.id, slots: p.slots!, port: p.port });
  }
});

afterAll(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close().catch(() => {})));
  for (const n of nodes ?? []) n.redis.disconnect();
  await cluster?.stop();
  await Promise.all(extraServers.splice(0).map((x) => x.stop()));
});

async function open(t: Target = target): Promise<BenchSession> {
  const s = await BenchSession.open(t);
  sessions.push(s);
  return s;
}

function cell(o: Partial<CellOptions>): CellOptions {
  return { ...DEFAULT_CELL_OPTIONS, connections: 5, requests: 3000, ...o };
}

/** The node serving a slot, by the ranges the cluster was built with (or as moved by a test). */
const owner = new Map<number, number>();
function nodeOf(slot: number): number {
  return owner.get(slot) ?? nodes.findIndex((n) => slot >= n.slots[0] && slot <= n.slots[1]);
}

async function scanAll(redis: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    out.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return out;
}

/** calls + rejected_calls of one command, summed over the primaries (as the engine should). */
async function callsOnPrimaries(command: string): Promise<number> {
  let total = 0;
  for (const n of nodes) {
    const m = new RegExp(`cmdstat_${command}:calls=(\\d+),.*rejected_calls=(\\d+)`).exec(
      await n.redis.info('commandstats'),
    );
    if (m) total += Number(m[1]) + Number(m[2]);
  }
  return total;
}

function expectClean(r: CellResult, n: number): void {
  expect(r.error).toBeNull();
  expect(r.incomplete).toBe(false);
  expect(r.errors).toEqual({});
  expect(r.completed).toBe(n);
  expect(r.latencyUs.count).toBe(n);
  expect(r.crossCheck).toMatchObject({ status: 'match', expected: n, observed: n });
}

describe('topology', () => {
  it('CLUSTER SHARDS finds the primaries, their slots, the replica and every version', async () => {
    const s = await open();
    const t = s.cluster!.topology;
    expect(t.discoveredBy).toBe('CLUSTER SHARDS');
    expect(t.slotsCovered).toBe(16384);
    const primaries = t.nodes.filter((n) => n.role === 'primary');
    expect(primaries.map((n) => n.port).sort()).toEqual(cluster.primaries.map((n) => n.port).sort());
    for (const p of primaries) {
      const built = cluster.primaries.find((n) => n.port === p.port)!;
      expect(p).toMatchObject({ id: built.id, host: '127.0.0.1', slotRanges: 1, primaryId: null });
      expect(p.slots).toBe(built.slots![1] - built.slots![0] + 1);
    }
    const replica = t.nodes.find((n) => n.role === 'replica')!;
    expect(replica).toMatchObject({
      port: cluster.nodes[3]!.port,
      id: cluster.nodes[3]!.id,
      primaryId: cluster.primaries[0]!.id,
    });
    for (const n of t.nodes) expect(n.version).toBe(cluster.nodes[0]!.server.version);
  });

  it('CLUSTER SLOTS (the fallback for servers before 7.0) finds the same primaries and slots', async () => {
    const seed = await ControlPlane.connect(target);
    const c = await ClusterControl.open(target, seed, { prefer: 'slots' });
    try {
      expect(c.topology.discoveredBy).toBe('CLUSTER SLOTS');
      const s = await open();
      // CLUSTER SLOTS lists a replica only once it has replicated some data (a non-zero offset),
      // so on this fresh cluster the comparison is of the primaries.
      const primaries = (x: typeof c.topology) =>
        x.nodes
          .filter((n) => n.role === 'primary')
          .map(({ health: _h, ...n }) => n)
          .sort((a, b) => a.port - b.port);
      expect(primaries(c.topology)).toEqual(primaries(s.cluster!.topology));
      expect(primaries(c.topology)).toHaveLength(3);
      expect(c.topology.slotsCovered).toBe(16384);
    } finally {
      await c.close();
      await seed.close();
    }
  });

  it('keySlot agrees with the server, hash tags included', async () => {
    const keys = [
      'rbdb:abcdef:key:000000000042',
      '{user1000}.following',
      'foo{}{bar}',
      'foo{{bar}}zap',
      'a{b',
    ];
    for (const k of keys) expect(keySlot(k)).toBe(await nodes[0]!.redis.cluster('KEYSLOT', k));
  });

  it('a server that is not a cluster node is refused with the fix', async () => {
    const plain = await startServer();
    try {
      await expect(open({ ...DEFAULT_TARGET, port: plain.port, cluster: true })).rejects.toThrow(
        /not a cluster node.*drop --cluster/,
      );
    } finally {
      await plain.stop();
    }
  });

  it('a unix socket or another database is refused: a cluster is reached by TCP, on db 0', async () => {
    await expect(open({ ...target, socket: '/tmp/x.sock' })).rejects.toThrow(/TCP address/);
    await expect(open({ ...target, db: 2 })).rejects.toThrow(/database 0.*--dbnum/);
  });
});

describe('routing', () => {
  it('SET: every request succeeds on its slot’s primary, and commandstats summed over the nodes match', async () => {
    const s = await open();
    const before = await callsOnPrimaries('set');
    const r = await s.runCell(
      cell({ test: 'SET', keyspaceSize: 3000, requests: 6000, keyPattern: 'sequential' }),
    );
    expectClean(r, 6000);
    expect(r.redirects).toEqual({ moved: 0, ask: 0 });
    expect((await callsOnPrimaries('set')) - before).toBe(6000);
    // Each key is on the node that serves its slot, by the server's own CLUSTER KEYSLOT.
    let total = 0;
    for (const [i, n] of nodes.entries()) {
      const keys = await scanAll(n.redis, `${s.prefix}*`);
      expect(keys.length).toBeGreaterThan(500);
      total += keys.length;
      const slots = await Promise.all(keys.map((k) => n.redis.cluster('KEYSLOT', k) as Promise<number>));
      for (const slot of slots) expect(nodeOf(slot)).toBe(i);
    }
    expect(total).toBe(3000);
    expect(await s.cleanup()).toBe(3000);
    for (const n of nodes) expect(await scanAll(n.redis, `${s.prefix}*`)).toEqual([]);
  });

  it('GET after a preload hits every key, in window mode across threads', async () => {
    const s = await open();
    const r = await s.runCell(
      cell({
        test: 'GET',
        keyspaceSize: 2000,
        valueSizeBytes: 32,
        preload: true,
        threads: 2,
        pipelineDepth: 8,
        pipelineMode: 'window',
      }),
    );
    expectClean(r, 3000);
    expect(r.hitRatio).toBe(1);
    await s.cleanup();
  });

  it('MSET keeps each request’s ten keys in one slot: no CROSSSLOT', async () => {
    const s = await open();
    const r = await s.runCell(cell({ test: 'MSET', keyspaceSize: 100_000, pipelineDepth: 4 }));
    expectClean(r, 3000);
    await s.cleanup();
  });

  it('fixed keys (LPUSH mylist) go to their one node; PING goes round the primaries', async () => {
    const s = await open();
    expectClean(await s.runCell(cell({ test: 'LPUSH' })), 3000);
    const list = `${s.prefix}mylist`;
    expect(await nodes[nodeOf(keySlot(list))]!.redis.llen(list)).toBe(3000);
    const pings = nodes.map((n) => n.redis.info('commandstats'));
    const before = await Promise.all(pings);
    expectClean(await s.runCell(cell({ test: 'PING_MBULK', connections: 3 })), 3000);
    const after = await Promise.all(nodes.map((n) => n.redis.info('commandstats')));
    const pingCalls = (text: string) => Number(/cmdstat_ping:calls=(\d+)/.exec(text)?.[1] ?? 0);
    for (let i = 0; i < nodes.length; i++)
      expect(pingCalls(after[i]!) - pingCalls(before[i]!)).toBeGreaterThan(500);
    await s.cleanup();
  });

  it('open loop: requests keep their intended times wherever they are routed', async () => {
    const s = await open();
    const r = await s.runCell({
      ...cell({ test: 'SET', keyspaceSize: 1000, rateOpsPerSec: 3000 }),
      requests: 1500,
    });
    expectClean(r, 1500);
    expect(r.responseTimeUs?.count).toBe(1500);
    // The client's own send lateness, for every measured request: part of each response time (it
    // runs from the intended send to the actual one), so no percentile of it exceeds the response
    // time's, and the 1,500 sends at 3,000/s never wait on room here (P 1 a node, 1 connection).
    const late = r.sendLatenessUs!;
    expect(late.count).toBe(1500);
    for (const p of ['p50Us', 'p99Us', 'maxUs'] as const)
      expect(late[p]).toBeLessThanOrEqual(r.responseTimeUs![p]);
    await s.cleanup();
  });

  it('RESP3 (HELLO 3 on every node socket) routes the same way', async () => {
    const s = await open({ ...target, resp3: true });
    expectClean(await s.runCell(cell({ test: 'INCR', keyspaceSize: 500, pipelineDepth: 16 })), 3000);
    await s.cleanup();
  });

  it('a primary that refuses the node sockets’ handshake is named in the error', async () => {
    const s = await open({ ...target, resp3: true });
    // The session's control connections are in; then one primary takes no more clients (its
    // limit counts clients, replicas and cluster bus links), so the cell's node sockets to it
    // are refused their HELLO 3.
    const n = nodes[1]!;
    const field = (info: string, name: string) => Number(new RegExp(`${name}:(\\d+)`).exec(info)![1]);
    const clients = await n.redis.info('clients');
    const taken =
      field(clients, 'connected_clients') +
      field(clients, 'cluster_connections') +
      field(await n.redis.info('replication'), 'connected_slaves');
    await n.redis.config('SET', 'maxclients', String(taken));
    try {
      const err = await s.runCell(cell({ test: 'SET' })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      // Redis says "max number of clients + cluster connections reached" on a cluster node.
      expect((err as Error).message).toContain(
        `the server at cluster node 127.0.0.1:${n.port} refused the handshake: ERR max number of clients`,
      );
      expect((err as Error).message).toContain('run fewer connections (-c)');
    } finally {
      await n.redis.config('SET', 'maxclients', '10000');
    }
  });

  it('a custom command with keys of different forms is refused before any load', async () => {
    const s = await open();
    await expect(
      s.runCell(cell({ test: 'CUSTOM', command: ['MSET', 'a:__rand_int__', 'x', 'b:__rand_int__', 'y'] })),
    ).rejects.toThrow(/in cluster mode a request's keys must share one slot/);
  });
});

/** Every INCR counter under the prefix, by key number, read from the node that holds it. */
async function counters(prefix: string): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const n of nodes) {
    const keys = await scanAll(n.redis, `${prefix}counter:*`);
    const values = await Promise.all(keys.map((k) => n.redis.get(k)));
    keys.forEach((k, i) => {
      out.set(Number(k.slice(-12)), Number(values[i]));
    });
  }
  return out;
}

async function incrCalls(n: { redis: Redis }): Promise<number> {
  const m = /cmdstat_incr:calls=(\d+)/.exec(await n.redis.info('commandstats'));
  return m ? Number(m[1]) : 0;
}

describe('a pipeline per node', () => {
  const P = 16;
  /** Only a backstop: the test unpauses as soon as it has its samples. */
  const PAUSE_BACKSTOP_MS = 120_000;
  const connections = 5;

  // One primary holds its writes (CLIENT PAUSE WRITE: its INFO still answers) from before the cell
  // starts until well after the others have had time to run out of work. Batch mode: a node socket
  // sends its next P requests when its own P are answered, so the other primaries complete many
  // batches meanwhile. With one pipeline per connection, as before, a connection waited for all of
  // its requests, the paused node's among them: the others could complete at most the first
  // batch, fewer than 3 x P per connection. They stop in the end here too, once the paused node's
  // pending pool is full: keys are not skipped.
  for (const pipelineMode of ['batch', 'window'] as const) {
    it(`${pipelineMode}: while one primary is paused, the others keep completing; every key drawn is sent`, async () => {
      const s = await open();
      const keyspaceSize = 5000;
      const requests = 30_000;
      const [paused, ...others] = nodes.slice(0, 3) as [(typeof nodes)[0], ...(typeof nodes)[0][]];
      const before = await Promise.all([paused, ...others].map(incrCalls));
      // Paused until the samples are taken, then unpaused: a pause of fixed length could end before a
      // busy machine got the cell going, and the samples would prove nothing.
      await paused.redis.call('CLIENT', 'PAUSE', String(PAUSE_BACKSTOP_MS), 'WRITE');
      let loadBegan!: () => void;
      const began = new Promise<void>((r) => {
        loadBegan = r;
      });
      const run = s.runCell(
        cell({
          test: 'INCR',
          keyspaceSize,
          keyPattern: 'sequential',
          requests,
          connections,
          pipelineDepth: P,
          pipelineMode,
        }),
        {
          onProgress: (done) => {
            if (done > 0) loadBegan();
          },
        },
      );
      const othersDoneBy = (counts: number[]) =>
        counts.slice(1).reduce((a, x, i) => a + x - before[i + 1]!, 0);
      let during: number[];
      try {
        await began;
        // Until the others are past what they could complete if they waited on the paused node (or
        // a backstop, where the assertion below fails): a condition, not a guess at how long it takes.
        const backstop = Date.now() + 60_000;
        do {
          await sleep(100);
          during = await Promise.all([paused, ...others].map(incrCalls));
        } while (othersDoneBy(during) <= connections * 3 * P && Date.now() < backstop);
      } finally {
        await paused.redis.call('CLIENT', 'UNPAUSE');
      }
      const pausedDone = during[0]! - before[0]!;
      const othersDone = othersDoneBy(during);
      // The cell ends before anything is asserted, so that a failure here leaves no load behind to
      // disturb the next test's counts.
      const r = await run;
      expect(pausedDone).toBe(0);
      expect(othersDone, `requests completed by the other primaries during the pause`).toBeGreaterThan(
        connections * 3 * P,
      );

      expectClean(r, requests);
      // Sequential keys, exactly requests / keyspaceSize rounds of the key space: each key was
      // drawn 6 times, and each drawn key was sent once (none skipped, none left pending).
      const got = await counters(s.prefix);
      expect(got.size).toBe(keyspaceSize);
      for (const v of got.values()) expect(v).toBe(requests / keyspaceSize);
      await s.cleanup();
    });
  }

  it('open loop: requests held by a paused primary are the server’s wait, not the client sending late', async () => {
    const s = await open();
    const [paused] = nodes as [(typeof nodes)[0]];
    const requests = 6000;
    let loadBegan!: () => void;
    const began = new Promise<void>((r) => {
      loadBegan = r;
    });
    // 3 s of schedule at 2,000/s; one primary holds its writes for 1 s of it. Its pipeline fills,
    // then its pending pool, and the draw stops: every request due meanwhile is sent late, but for
    // the server. The schedule, not the machine's speed, decides how many were due in the pause.
    const run = s.runCell(
      { ...cell({ test: 'INCR', keyspaceSize: 5000, rateOpsPerSec: 2000, pipelineDepth: 1 }), requests },
      {
        onProgress: (done) => {
          if (done > 0) loadBegan();
        },
      },
    );
    await began;
    await paused.redis.call('CLIENT', 'PAUSE', String(PAUSE_BACKSTOP_MS), 'WRITE');
    await sleep(1000);
    await paused.redis.call('CLIENT', 'UNPAUSE');
    const r = await run;
    expectClean(r, requests);
    // The pause is in the response times: a tenth of the requests and more waited 300 ms or longer.
    expect(r.responseTimeUs!.p90Us).toBeGreaterThan(300_000);
    // ...and not in the client's lateness, which counts from when a reply made room (or let the
    // draw go on). Were the wait counted, its p90 would be the response time's.
    expect(r.sendLatenessUs!.count).toBe(requests);
    expect(r.sendLatenessUs!.p90Us).toBeLessThan(r.responseTimeUs!.p90Us / 10);
    await s.cleanup();
  });

  it('a skewed pattern: each key is sent exactly as often as the key pattern drew it', async () => {
    const s = await open();
    const keyspaceSize = 1000;
    const requests = 20_000;
    const r = await s.runCell(
      cell({ test: 'INCR', keyspaceSize, keyPattern: 'zipf', requests, connections, pipelineDepth: P }),
    );
    expectClean(r, requests);
    // The one worker's generator, as the driver seeds it.
    const keys = createKeyGenerator({ pattern: 'zipf', keyspaceSize, seed: 1, stream: 0, streams: 1 });
    const expected = new Map<number, number>();
    for (let i = 0; i < requests; i++) {
      const k = keys.nextKey();
      expected.set(k, (expected.get(k) ?? 0) + 1);
    }
    expect(await counters(s.prefix)).toEqual(expected);
    await s.cleanup();
  });

  it('completes exactly the requested count when the budget runs out mid-batch, across threads', async () => {
    const s = await open();
    for (const pipelineMode of ['batch', 'window'] as const) {
      const r = await s.runCell(
        cell({
          test: 'SET',
          keyspaceSize: 10_000,
          requests: 10_007,
          connections: 7,
          threads: 2,
          pipelineDepth: P,
          pipelineMode,
        }),
      );
      expectClean(r, 10_007);
    }
    await s.cleanup();
  });
});

/**
 * Run a 3 s SET cell over 100 keys (each gets 1% of the load, so the slot that moves sees a few
 * hundred requests a second) and, once it measures, move the slot of key 0 from its owner to `to`
 * the documented way: IMPORTING on the target, MIGRATING on the source, MIGRATE its keys (missing
 * keys are now answered with ASK), then SETSLOT NODE everywhere (MOVED).
 */
async function reshardUnderLoad(s: BenchSession, to: (from: number) => number) {
  const key = `${s.prefix}key:${'0'.padStart(12, '0')}`;
  const slot = keySlot(key);
  const from = nodeOf(slot);
  const src = nodes[from]!;
  const dst = nodes[to(from)]!;
  let measuring!: () => void;
  const started = new Promise<void>((r) => {
    measuring = r;
  });
  const before = await callsOnPrimaries('set');
  const run = s.runCell(
    cell({
      test: 'SET',
      keyspaceSize: 100,
      requests: undefined,
      durationSec: 3,
      pipelineDepth: 4,
      pipelineMode: 'window',
    }),
    {
      onProgress: (done) => {
        if (done > 0) measuring();
      },
    },
  );
  await started;
  await sleep(300);
  await dst.redis.cluster('SETSLOT', slot, 'IMPORTING', src.id);
  await src.redis.cluster('SETSLOT', slot, 'MIGRATING', dst.id);
  for (;;) {
    const keys = (await src.redis.cluster('GETKEYSINSLOT', slot, 100)) as string[];
    if (keys.length === 0) break;
    await src.redis.migrate('127.0.0.1', dst.port, '', 0, 5000, 'KEYS', ...keys);
  }
  await sleep(500);
  for (const n of [dst, src, ...nodes.filter((x) => x !== src && x !== dst)])
    await n.redis.cluster('SETSLOT', slot, 'NODE', dst.id);
  owner.set(slot, nodes.indexOf(dst));
  return { r: await run, key, slot, src, dst, setCalls: (await callsOnPrimaries('set')) - before };
}

/** No request lost or failed; both kinds of redirect followed; the server's count matches. */
function expectResharded(x: Awaited<ReturnType<typeof reshardUnderLoad>>) {
  const { r } = x;
  expect(r.error).toBeNull();
  expect(r.incomplete).toBe(false);
  expect(r.errors).toEqual({});
  expect(r.completed).toBeGreaterThan(3000);
  expect(r.latencyUs.count).toBe(r.completed);
  expect(r.redirects!.ask).toBeGreaterThan(0);
  expect(r.redirects!.moved).toBeGreaterThan(0);
  // The server counted each redirected request twice (rejected, then answered): the cross-check allows for it.
  expect(r.crossCheck.status).toBe('match');
  expect(r.crossCheck.observed).toBe(x.setCalls);
}

describe('resharding during the load', () => {
  it('follows MOVED and ASK, counts them, and loses or fails no request', async () => {
    const s = await open();
    const x = await reshardUnderLoad(s, (from) => (from + 1) % nodes.length);
    expectResharded(x);
    // The key now lives on the target, and the source has nothing left in that slot.
    expect(await x.dst.redis.exists(x.key)).toBe(1);
    expect(await x.src.redis.cluster('COUNTKEYSINSLOT', x.slot)).toBe(0);

    // The next cell reads the slots anew: no redirect at all.
    const again = await s.runCell(cell({ test: 'SET', keyspaceSize: 100 }));
    expectClean(again, 3000);
    expect(again.redirects).toEqual({ moved: 0, ask: 0 });
    await s.cleanup();
    for (const n of nodes) expect(await scanAll(n.redis, `${s.prefix}*`)).toEqual([]);
  });

  it('scale-out: a slot moves to a new, empty primary mid-cell, and is followed there', async () => {
    const busPort = await freePort();
    const added = await startServer({
      config: [
        'cluster-enabled yes',
        'cluster-config-file nodes.conf',
        'cluster-node-timeout 5000',
        `cluster-port ${busPort}`,
      ],
    });
    extraServers.push(added);
    const redis = new Redis({
      port: added.port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on('error', () => {});
    await redis.connect();
    const id = (await redis.cluster('MYID')) as string;
    await nodes[0]!.redis.call('CLUSTER', 'MEET', '127.0.0.1', added.port, busPort);
    nodes.push({ redis, id, slots: [1, 0], port: added.port });
    // Every node knows every other, and the new one has learnt the slots (else it is "down").
    await waitUntil(async () => {
      const views = await Promise.all(nodes.map((n) => n.redis.cluster('NODES') as Promise<string>));
      // The primaries (the new one among them) and the replica.
      const count = nodes.length + 1;
      const known = views.every((v) => v.trim().split('\n').length === count && !/handshake|noaddr/.test(v));
      return known && /cluster_state:ok/.test((await redis.cluster('INFO')) as string);
    });
    const s = await open();
    const x = await reshardUnderLoad(s, () => nodes.length - 1);
    expectResharded(x);
    expect(await redis.exists(x.key)).toBe(1);
    await s.cleanup();
  });
});

describe('TLS', () => {
  it('routes over TLS to every primary (tls-port from CLUSTER SHARDS)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rbdb-cluster-tls-'));
    let tlsCluster: LocalCluster | null = null;
    try {
      const certs = await makeTestCertificates(dir);
      tlsCluster = await startLocalCluster({ primaries: 3, tls: certs });
      const s = await BenchSession.open({
        ...DEFAULT_TARGET,
        port: tlsCluster.nodes[2]!.port,
        cluster: true,
        tls: { caFile: certs.caFile },
      });
      try {
        expect(s.cluster!.topology.nodes.map((n) => n.port).sort()).toEqual(
          tlsCluster.nodes.map((n) => n.port).sort(),
        );
        expectClean(await s.runCell(cell({ test: 'SET', keyspaceSize: 1000 })), 3000);
        expect(await s.cleanup()).toBeGreaterThan(900);
      } finally {
        await s.close();
      }
    } finally {
      await tlsCluster?.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen({ host: '127.0.0.1', port: 0 }, () => {
      const a = srv.address();
      srv.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** Until the cluster agrees, however long a busy machine takes; vitest's timeout guards a hang. */
async function waitUntil(cond: () => Promise<boolean>): Promise<void> {
  while (!(await cond())) await sleep(50);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
