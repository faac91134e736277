// redis-benchdb --cluster against redis-benchmark --cluster, on one throwaway local cluster.
//   pnpm bench:cluster [--rounds 3] [--primaries 3] [--threads 1] [--scale X] [--json]
// Cells: SET and GET, 256-byte values, 100,000 keys, at pipeline 1 and 16 (batch, as
// redis-benchmark -P) and redis-benchdb's window mode at 16. Requests per run: 100,000 at P1 and
// 500,000 at P16, times --scale. Each round runs both tools on identical cells, one at a time,
// alternating which goes first; the table gives medians of per-round ratios.
//
// The two tools shape the load differently, so the flags are chosen to give every primary the
// same: 50 sockets with P requests in flight each. redis-benchmark --cluster binds each of its -c
// clients to one primary (hash-tagging its keys into that primary's slots): it runs with
// -c 50 x primaries. redis-benchdb gives each connection a socket to every primary, sends each
// request where its key's slot is, and keeps P in flight per socket: it runs with -c 50. Both run
// --threads 1 unless told (redis-benchmark's own default in cluster mode is a thread per primary).

import { parseArgs } from 'node:util';
import {
  benchSession,
  describeMachine,
  flushAll,
  fmt,
  markdownTable,
  median,
  positiveFlag,
  refuseProductionPort,
} from './lib/bench.mjs';
import { redisBenchdbPeer } from './lib/redis-benchdb.mjs';
import { redisBenchmarkPeer } from './lib/redis-benchmark.mjs';

const { startLocalCluster } = await import('@redis-benchdb/engine');

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    primaries: { type: 'string', default: '3' },
    threads: { type: 'string', default: '1' },
    scale: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
  },
});
const rounds = Math.round(positiveFlag('bench-cluster', args, 'rounds'));
const primaries = Math.round(positiveFlag('bench-cluster', args, 'primaries'));
const scale = positiveFlag('bench-cluster', args, 'scale');
const threads = Math.round(positiveFlag('bench-cluster', args, 'threads'));
const requestsFor = (p) => Math.max(1000, Math.round((p === 1 ? 100_000 : 500_000) * scale));
const CELLS = [
  { name: 'P1 batch', pipeline: 1, mode: 'batch' },
  { name: 'P16 batch', pipeline: 16, mode: 'batch' },
  { name: 'P16 window', pipeline: 16, mode: 'window' },
];

const session = benchSession('bench-cluster', { what: 'cluster' });
const { log } = session;
const redisBenchmark = redisBenchmarkPeer(session.run);
const redisBenchdb = redisBenchdbPeer(session.run);

await session.main(async () => {
  const cluster = session.own(await startLocalCluster({ primaries }));
  // startLocalCluster picks free ports; never the production server.
  refuseProductionPort(cluster.nodes.map((n) => n.port));
  const seed = cluster.nodes[0].port;
  const machine = describeMachine(cluster.nodes[0].server.version);
  log(`${primaries} primaries on 127.0.0.1:${cluster.nodes.map((n) => n.port).join(',')}; not pinned`);
  // The same load on every primary: 50 sockets each (see the top of this file).
  const workload = (pipeline, mode, connections) => ({
    target: { host: '127.0.0.1', port: seed },
    cluster: true,
    tests: ['set', 'get'],
    connections,
    valueSize: 256,
    keyspaceSize: 100_000,
    threads,
    requests: requestsFor(pipeline),
    pipelineDepth: pipeline,
    pipelineMode: mode,
  });
  const perRound = [];
  for (let round = 1; round <= rounds; round++) {
    const runs = { round, redisBenchmark: {}, redisBenchdb: {} };
    for (const pipeline of [1, 16]) {
      const ours = CELLS.filter((c) => c.pipeline === pipeline);
      for (const cell of round % 2 === 1 ? [null, ...ours] : [...ours, null]) {
        const key = cell ? cell.name : `P${pipeline} batch`;
        // The cluster is this script's own; emptying its primaries gives both tools the same start.
        await Promise.all(cluster.primaries.map((n) => flushAll(n.port)));
        const result = cell
          ? await redisBenchdb(workload(pipeline, cell.mode, 50))
          : await redisBenchmark(workload(pipeline, 'batch', 50 * primaries));
        (cell ? runs.redisBenchdb : runs.redisBenchmark)[key] = result;
        log(
          `round ${round}/${rounds} ${cell ? 'redis-benchdb' : 'redis-benchmark'} ${key}: ${result.map((r) => `${r.test} ${fmt(r.opsPerSec)} ops/s`).join(', ')}`,
        );
      }
    }
    perRound.push(runs);
  }
  const rows = summarize(perRound);
  if (args.json) console.log(JSON.stringify({ machine, rounds, primaries, scale, rows, perRound }, null, 2));
  else printTable(machine, rows);
});

function summarize(perRound) {
  return CELLS.flatMap((cell) =>
    ['SET', 'GET'].map((test) => {
      const pick = (runs, key) => runs[key].find((r) => r.test === test);
      const ours = perRound.map((r) => pick(r.redisBenchdb, cell.name));
      const theirs = perRound.map((r) => pick(r.redisBenchmark, `P${cell.pipeline} batch`));
      const ratios = ours.map((o, i) => o.opsPerSec / theirs[i].opsPerSec);
      return {
        cell: `${test} ${cell.name}`,
        redisBenchmarkOps: median(theirs.map((t) => t.opsPerSec)),
        redisBenchdbOps: median(ours.map((o) => o.opsPerSec)),
        ratio: median(ratios),
        minRatio: Math.min(...ratios),
        maxRatio: Math.max(...ratios),
        redisBenchdbP50Us: median(ours.map((o) => o.latencyUs.p50Us)),
        redisBenchmarkP50Us: median(theirs.map((t) => t.latencyUs.p50Us)),
        busiestPrimaryCpu: median(ours.map((o) => o.saturation.serverMainThreadCpuShare ?? Number.NaN)),
        clientElu: median(ours.map((o) => Math.max(...o.saturation.clientEventLoopUtilization))),
        crossCheckMatches: `${ours.filter((o) => o.crossCheck.status === 'match').length}/${ours.length}`,
      };
    }),
  );
}

function printTable(m, rows) {
  console.log(
    `Machine: ${m.cpu}, ${m.nproc} CPUs; ${primaries} x redis-server ${m.redisServer}; ${m.redisBenchmark}; node ${m.node}`,
  );
  console.log(
    `Rounds: ${rounds}; requests per run: ${requestsFor(1)} at P1, ${requestsFor(16)} at P16; redis-benchmark -c ${50 * primaries}, redis-benchdb -c 50 (50 sockets per primary each); --threads ${threads}; not pinned (${primaries} servers and a client share the CPUs)`,
  );
  console.log(
    'ratio = redis-benchdb --cluster / redis-benchmark --cluster ops/s, median of per-round ratios\n',
  );
  const head = ['cell', 'redis-benchmark ops/s', 'redis-benchdb ops/s', 'ratio', 'min', 'max'];
  head.push('benchdb p50 µs', 'benchmark p50 µs', 'busiest primary CPU', 'benchdb client ELU', 'cross-check');
  const body = rows.map((r) => [
    r.cell,
    fmt(r.redisBenchmarkOps),
    fmt(r.redisBenchdbOps),
    ...[r.ratio, r.minRatio, r.maxRatio].map((x) => x.toFixed(3)),
    fmt(r.redisBenchdbP50Us),
    fmt(r.redisBenchmarkP50Us),
    Number.isNaN(r.busiestPrimaryCpu) ? 'n/a' : r.busiestPrimaryCpu.toFixed(2),
    r.clientElu.toFixed(2),
    r.crossCheckMatches,
  ]);
  console.log(markdownTable(head, body));
  console.log('\nWindow cells are compared with redis-benchmark P16 batch (it has no window mode).');
}
