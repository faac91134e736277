// Micro-benchmark of the measured path's pure parts: encoding requests from a template and
// reading replies. Run: pnpm -s build && node packages/engine/bench/hot-path.mjs [STEP] [--requests N]
// It prints ns per request; a regression here shows up as lost throughput against redis-benchmark.
// STEP runs only the steps whose name contains it (e.g. 'standalone batch'), set up alone: under
// `valgrind --tool=callgrind`, two values of N give instructions per request whatever the load.
import { parseArgs } from 'node:util';
import { compileTest, findTests } from '../dist/commands.js';
import { createKeyGenerator, Rng } from '../dist/keys.js';
import { LatencyRecorder } from '../dist/load/latency-recorder.js';
import { createValueSource } from '../dist/load/values.js';
import { ReplyReader } from '../dist/resp/reply-reader.js';

const { values: args, positionals } = parseArgs({
  options: { requests: { type: 'string' } },
  allowPositionals: true,
});
const N = args.requests === undefined ? 2_000_000 : Number(args.requests);
if (!(Number.isInteger(N) && N >= 100))
  throw new Error(`--requests: want a whole number >= 100, got ${args.requests}`);
const only = positionals[0] ?? '';
const wanted = (name) => name.includes(only);
const time = (name, n, fn) => {
  if (!wanted(name)) return;
  fn(Math.min(n, 100_000)); // warm up the JIT
  const t = performance.now();
  fn(n);
  const ns = ((performance.now() - t) * 1e6) / n;
  console.log(`${name.padEnd(44)} ${ns.toFixed(1).padStart(7)} ns/request`);
};

for (const [test, size] of [
  ['SET', 256],
  ['GET', 256],
  ['MSET', 256],
]) {
  const tpl = compileTest(findTests([test])[0], 'rbdb:bench00:', size);
  const keys = createKeyGenerator({ pattern: 'uniform', keyspaceSize: 1_000_000, seed: 1 });
  const values = createValueSource(size, size, new Rng(1));
  const out = Buffer.allocUnsafe(tpl.maxBytes * 16);
  time(`encode ${test} ${size}B (16 per write)`, N, (n) => {
    for (let i = 0; i < n; i += 16) {
      let pos = 0;
      for (let j = 0; j < 16; j++) pos = tpl.encode(out, pos, keys, values);
    }
  });
}

const replies = {
  '+OK': Buffer.from('+OK\r\n'.repeat(16)),
  'bulk 256B': Buffer.from(`$256\r\n${'x'.repeat(256)}\r\n`.repeat(16)),
  nil: Buffer.from('$-1\r\n'.repeat(16)),
  'LRANGE 100 x 3B': Buffer.from(`*100\r\n${'$3\r\nxxx\r\n'.repeat(100)}`),
};
for (const [name, chunk] of Object.entries(replies)) {
  const reader = new ReplyReader();
  const per = name.startsWith('LRANGE') ? 1 : 16;
  time(`read ${name}`, name.startsWith('LRANGE') ? N / 20 : N, (n) => {
    for (let i = 0; i < n; i += per) reader.feed(chunk, chunk.length);
  });
}

const rec = new LatencyRecorder();
time('record latency (µs counts, flushed to HDR)', N * 5, (n) => {
  for (let i = 0; i < n; i++) rec.recordMs(0.1 + (i & 1023) / 1000);
  rec.flush();
});

// Cluster mode: what routing adds per request. A key's slot from the table (key spaces up to 4 Mi
// keys), or computed from the prefix's CRC state and 12 digits above that; MSET's nine extra keys
// drawn from its first key's slot.
const { KeySlots, KeysBySlot } = await import('../dist/cluster/slots.js');
const { RequestKeys } = await import('../dist/cluster/routing.js');
for (const [name, size] of [
  ['slot of a key (table, 1e6 keys)', 1_000_000],
  ['slot of a key (computed, 1e8 keys)', 100_000_000],
]) {
  const slots = new KeySlots(Buffer.from('rbdb:bench00:key:'), size);
  const keys = createKeyGenerator({ pattern: 'uniform', keyspaceSize: size, seed: 1 });
  let sink = 0;
  time(name, N, (n) => {
    for (let i = 0; i < n; i++) sink += slots.slotOf(keys.nextKey());
  });
  if (sink < 0) console.log(sink);
}
{
  const slots = new KeySlots(Buffer.from('rbdb:bench00:key:'), 1_000_000);
  const route = { keys: slots, slot: -1, drawsKey: true, sameSlotKeys: new KeysBySlot(slots.table) };
  const tpl = compileTest(findTests(['mset'])[0], 'rbdb:bench00:', 256);
  const keys = createKeyGenerator({ pattern: 'uniform', keyspaceSize: 1_000_000, seed: 1 });
  const values = createValueSource(256, 256, new Rng(1));
  const rk = new RequestKeys(1);
  const out = Buffer.allocUnsafe(tpl.maxBytes * 16);
  time('encode MSET 256B, ten keys of one slot', N / 4, (n) => {
    for (let i = 0; i < n; i += 16) {
      let pos = 0;
      for (let j = 0; j < 16; j++) {
        const k = keys.nextKey();
        rk.reset(k, route, slots.slotOf(k));
        pos = tpl.encode(out, pos, rk, values);
      }
    }
  });
}

// Cluster mode: one connection's whole cycle per request (draw and route the key, queue it in its
// node's pending pool, encode it into the node's batch, read and time its reply), with sockets
// that only count writes: SET 256B, -P 16 per node socket, 3 primaries answering in turn, batch
// (each node answers all it has) and window (a read answers one to four).
{
  const { ClusterConnection } = await import('../dist/cluster/connection.js');
  const { ClusterRouting } = await import('../dist/cluster/routing.js');
  const { Workload } = await import('../dist/load/workload.js');
  const plan = {
    primaries: [7000, 7001, 7002].map((port) => ({ host: '127.0.0.1', port })),
    ranges: [
      [0, 5460, 0],
      [5461, 10922, 1],
      [10923, 16383, 2],
    ],
  };
  const tests = findTests(['set']);
  const depth = 16;
  for (const window of [false, true]) {
    const name = `cluster ${window ? 'window' : 'batch'} P16 on 3 nodes (encode + reply)`;
    if (!wanted(name)) continue;
    const routing = new ClusterRouting(plan, tests, 'rbdb:bench00:', 1_000_000);
    const workload = new Workload(
      [compileTest(tests[0], 'rbdb:bench00:', 256)],
      Uint8Array.from([0]),
      createKeyGenerator({ pattern: 'uniform', keyspaceSize: 1_000_000, seed: 1 }),
      createValueSource(256, 256, new Rng(1)),
      null,
    );
    let writes = 0;
    const socket = {
      writableLength: 0,
      write() {
        writes++;
        return true;
      },
    };
    const host = {
      onReplies: (c) => c.fill(Number.POSITIVE_INFINITY),
      abort: (reason) => {
        throw new Error(reason);
      },
    };
    const conn = new ClusterConnection(host, workload, routing, depth, window, false, 0, 1);
    for (const n of conn.nodes) n.socket = socket;
    const ok = Buffer.from('+OK\r\n'.repeat(depth));
    conn.fill(Number.POSITIVE_INFINITY);
    let requests = 0;
    let round = 0;
    time(name, N, (n) => {
      writes = 0;
      requests = 0;
      while (requests < n) {
        for (const node of conn.nodes) {
          const k = window ? Math.min(node.inFlight, 1 + (round++ & 3)) : node.inFlight;
          if (k === 0) continue;
          node.onRead(k * 5, ok); // onRead is private in TypeScript: the socket's read callback
          requests += k;
        }
      }
    });
    console.log(`${''.padEnd(44)} ${(requests / writes).toFixed(1).padStart(7)} requests/write`);
  }
}

// One standalone connection's whole cycle per request (send from the pre-encoded copies, read and
// time each reply, refill), with a socket that only counts writes: SET 256B -P 16, batch and window
// (a read answers one to four). Each read also keeps the reply deadline's "last progress" time.
{
  const { LoadConnection } = await import('../dist/load/connection.js');
  const { Workload } = await import('../dist/load/workload.js');
  const tests = findTests(['set']);
  const depth = 16;
  for (const window of [false, true]) {
    const name = `standalone ${window ? 'window' : 'batch'} P16 (send + reply)`;
    if (!wanted(name)) continue;
    const workload = new Workload(
      [compileTest(tests[0], 'rbdb:bench00:', 256)],
      Uint8Array.from([0]),
      createKeyGenerator({ pattern: 'uniform', keyspaceSize: 1_000_000, seed: 1 }),
      createValueSource(256, 256, new Rng(1)),
      null,
    );
    workload.measureStartMs = 0;
    const host = {
      onReplies: (c) => c.fill(Number.POSITIVE_INFINITY),
      onConnectionLost: () => {},
      abort: (reason) => {
        throw new Error(reason);
      },
    };
    const conn = new LoadConnection(host, workload, depth, window, false);
    conn.socket = { writableLength: 0, write: () => true };
    const ok = Buffer.from('+OK\r\n'.repeat(depth));
    conn.fill(Number.POSITIVE_INFINITY);
    let round = 0;
    time(name, N, (n) => {
      for (let done = 0; done < n; ) {
        const k = window ? Math.min(conn.inFlight, 1 + (round++ & 3)) : conn.inFlight;
        conn.onRead(k * 5, ok); // onRead is private in TypeScript: the socket's read callback
        done += k;
      }
    });
  }
}
