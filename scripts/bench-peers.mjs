// redis-benchdb against its peer redis-benchmark, side by side on one throwaway redis-server.
//   pnpm bench:peers [--rounds 5] [--requests N] [--scale X] [--json] [--no-pin] [--cli PATH]
//                    [--memtier PATH]
// Cells: SET and GET, 256-byte values, 100,000 keys, 50 connections, at pipeline 1 (batch),
// pipeline 16 (batch, as redis-benchmark -P) and redis-benchdb's window mode at pipeline 16.
// Requests per run: 200,000 at P1 and 1,000,000 at P16 (or --requests N for all), times --scale.
// Each round runs both tools on identical cells, one at a time, alternating which goes first, and
// the summary reports medians of per-round ratios so that drift between rounds cancels out.
// Besides each tool's own ops/s, the server's count of SETs and GETs is sampled during every run
// (INFO commandstats every 50 ms), and its rate over the middle 60% of the run is the same yardstick
// for every tool: how hard the tool drove the server once both were going.
// With --memtier PATH, memtier_benchmark (the C tool with a sliding window, built by the user:
// Debian has no package) runs too, at P1 and in its window mode at P16.

import { parseArgs } from 'node:util';
import { pairedRatio } from '@redis-benchdb/result';
import {
  benchServer,
  benchSession,
  commandRateSampler,
  flushAll,
  fmt,
  markdownTable,
  median,
  positiveFlag,
  steadyRate,
  steadyServerCpuPerCall,
} from './lib/bench.mjs';
import { memtierPeer } from './lib/memtier.mjs';
import { CLI, redisBenchdbPeer } from './lib/redis-benchdb.mjs';
import { redisBenchmarkPeer } from './lib/redis-benchmark.mjs';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    // Pin the server to the last CPU and both tools to the others, identically: on a small
    // machine the scheduler otherwise moves them onto one core now and then, which is noise.
    pin: { type: 'boolean', default: true },
    requests: { type: 'string' },
    scale: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
    // Another build of the CLI to measure (e.g. one from an older checkout, to compare versions).
    cli: { type: 'string', default: CLI },
    memtier: { type: 'string' },
  },
  allowNegative: true,
});
const rounds = positiveFlag('bench-peers', args, 'rounds', { integer: true });
const scale = positiveFlag('bench-peers', args, 'scale');
const fixedRequests =
  args.requests === undefined ? null : positiveFlag('bench-peers', args, 'requests', { integer: true });
const requestsFor = (p) =>
  Math.max(1000, Math.round((fixedRequests ?? (p === 1 ? 200_000 : 1_000_000)) * scale));

const TOOL_NAMES = { redisBenchmark: 'redis-benchmark', redisBenchdb: 'redis-benchdb', memtier: 'memtier' };
const CELLS = [
  { name: 'P1 batch', pipeline: 1, mode: 'batch' },
  { name: 'P16 batch', pipeline: 16, mode: 'batch' },
  { name: 'P16 window', pipeline: 16, mode: 'window' },
];

const session = benchSession('bench-peers');
const { log } = session;
const redisBenchmark = redisBenchmarkPeer(session.run);
const redisBenchdb = redisBenchdbPeer(session.run, { cli: args.cli });
const memtier = args.memtier ? memtierPeer(session.run, { bin: args.memtier }) : null;
let pinning = null;

await session.main(async () => {
  const {
    server,
    pinning: pin,
    machine,
  } = await benchServer(session, { pin: args.pin, tools: 'both tools' });
  if (pin.server) pinning = pin;

  // SET and GET, 256-byte values, 100,000 keys, 50 connections; GET reads what SET wrote.
  const workload = (pipeline, mode) => ({
    target: { host: '127.0.0.1', port: server.port },
    tests: ['set', 'get'],
    connections: 50,
    valueSize: 256,
    keyspaceSize: 100_000,
    requests: requestsFor(pipeline),
    pipelineDepth: pipeline,
    pipelineMode: mode,
  });

  // One tool's run of one cell, from an empty database, with the server's own count beside it.
  const measure = async (peer, w) => {
    await flushAll(server.port);
    const sampler = commandRateSampler(server.port);
    let samples = [];
    let rows;
    try {
      rows = await peer(w);
    } finally {
      samples = sampler.stop();
    }
    return rows.map((r) => ({
      ...r,
      serverOpsPerSec: steadyRate(samples, r.test.toLowerCase()),
      serverUsPerCall: steadyServerCpuPerCall(samples, r.test.toLowerCase()),
    }));
  };

  const perRound = [];
  for (let round = 1; round <= rounds; round++) {
    const runs = { round, redisBenchmark: {}, redisBenchdb: {}, ...(memtier ? { memtier: {} } : {}) };
    for (const pipeline of [1, 16]) {
      // Every tool runs each cell once a round, one at a time, in an order that turns around
      // every round, so that no tool always gets the warmer (or cooler) machine.
      const jobs = [
        { tool: 'redisBenchmark', name: `P${pipeline} batch`, peer: redisBenchmark, mode: 'batch' },
        ...CELLS.filter((c) => c.pipeline === pipeline).map((c) => ({
          tool: 'redisBenchdb',
          name: c.name,
          peer: redisBenchdb,
          mode: c.mode,
        })),
        // memtier pipelines with a window; at depth 1 that is the same as a batch of one.
        ...(memtier ? [{ tool: 'memtier', name: `P${pipeline} window`, peer: memtier, mode: 'window' }] : []),
      ];
      for (const job of round % 2 === 1 ? jobs : jobs.reverse()) {
        const result = await measure(job.peer, workload(pipeline, job.mode));
        runs[job.tool][job.name] = result;
        const figures = result.map((r) => `${r.test} ${fmt(r.opsPerSec)} ops/s`).join(', ');
        log(`round ${round}/${rounds} ${TOOL_NAMES[job.tool]} ${job.name}: ${figures}`);
      }
    }
    perRound.push(runs);
  }

  const rows = summarize(perRound);
  const memtierRows = memtier ? summarizeMemtier(perRound) : null;
  const requests = { P1: requestsFor(1), P16: requestsFor(16) };
  if (args.json)
    console.log(JSON.stringify({ machine, rounds, scale, requests, rows, memtierRows, perRound }, null, 2));
  else {
    printTable(machine, rows);
    if (memtierRows) printMemtierTable(memtierRows);
  }
});

/**
 * Per-round ratios a/b of two tools' rows, by their own figures and by the server's count, and the
 * ratio of what a request cost the server's main thread under each (serverCostRatio): near 1 when
 * the server served both the same way, so that a gap in throughput at saturation is not the client's.
 * serverInterval: the 95% interval of the by-server-count ratio (the geometric mean of the rounds'
 * ratios, pairedRatio), so that "a ≥ b" is read against the rounds' spread, not from one median.
 */
function ratiosOf(as, bs) {
  const own = as.map((a, i) => a.opsPerSec / bs[i].opsPerSec);
  const pairs = (key) => {
    const i = as.map((_, k) => k).filter((k) => as[k][key] > 0 && bs[k][key] > 0);
    return { a: i.map((k) => as[k][key]), b: i.map((k) => bs[k][key]) };
  };
  const ratios = ({ a, b }) => a.map((x, k) => x / b[k]);
  const server = pairs('serverOpsPerSec');
  const cost = pairs('serverUsPerCall');
  const interval = server.a.length >= 2 ? pairedRatio(server.b, server.a) : null;
  return {
    ratio: median(own),
    min: Math.min(...own),
    max: Math.max(...own),
    serverRatio: server.a.length ? median(ratios(server)) : null,
    serverInterval: interval ? [interval.ci95Low, interval.ci95High] : null,
    serverCostRatio: cost.a.length ? median(ratios(cost)) : null,
  };
}

/** "0.95–1.04", or n/a with fewer than two rounds. */
function intervalText(iv) {
  return iv === null ? 'n/a' : `${iv[0].toFixed(3)}–${iv[1].toFixed(3)}`;
}

// memtier against redis-benchmark (the issue's claim: a sliding window at P16 beats a batch of 16),
// and redis-benchdb's window mode against memtier's, the like-for-like pair.
function summarizeMemtier(perRound) {
  return [1, 16].flatMap((pipeline) =>
    ['SET', 'GET'].map((test) => {
      const pick = (runs, key) => runs[key].find((r) => r.test === test);
      const mt = perRound.map((r) => pick(r.memtier, `P${pipeline} window`));
      const rb = perRound.map((r) => pick(r.redisBenchmark, `P${pipeline} batch`));
      const ours = perRound.map((r) => pick(r.redisBenchdb, pipeline === 1 ? 'P1 batch' : 'P16 window'));
      const hits = mt.map((m) => m.hitRatio).filter((h) => h !== null);
      return {
        cell: `${test} P${pipeline}`,
        memtierOps: median(mt.map((m) => m.opsPerSec)),
        redisBenchmarkOps: median(rb.map((m) => m.opsPerSec)),
        redisBenchdbOps: median(ours.map((m) => m.opsPerSec)),
        memtierVsRedisBenchmark: ratiosOf(mt, rb),
        redisBenchdbVsMemtier: ratiosOf(ours, mt),
        memtierHitRatio: hits.length ? Math.min(...hits) : null,
      };
    }),
  );
}

function printMemtierTable(rows) {
  console.log('\nmemtier_benchmark (sliding window; --distinct-client-seed), median of per-round ratios:\n');
  const r3 = (x) => (x === null ? 'n/a' : x.toFixed(3));
  const head = [
    ...['cell', 'memtier ops/s', 'memtier / redis-benchmark', 'by server count'],
    ...['redis-benchdb window / memtier', 'by server count', '95% interval', 'server µs/request ratio'],
    'memtier GET hits',
  ];
  const body = rows.map((r) => [
    ...[
      r.cell,
      fmt(r.memtierOps),
      r3(r.memtierVsRedisBenchmark.ratio),
      r3(r.memtierVsRedisBenchmark.serverRatio),
    ],
    ...[r3(r.redisBenchdbVsMemtier.ratio), r3(r.redisBenchdbVsMemtier.serverRatio)],
    intervalText(r.redisBenchdbVsMemtier.serverInterval),
    r3(r.redisBenchdbVsMemtier.serverCostRatio),
    r.memtierHitRatio === null ? '-' : r.memtierHitRatio.toFixed(3),
  ]);
  console.log(markdownTable(head, body));
  console.log('At P1 redis-benchdb runs in batch mode (a window of one is a batch of one).');
}

function summarize(perRound) {
  return CELLS.flatMap((cell) =>
    ['SET', 'GET'].map((test) => {
      const pick = (runs, key) => runs[key].find((r) => r.test === test);
      const ours = perRound.map((r) => pick(r.redisBenchdb, cell.name));
      // redis-benchmark has no window mode: its P16 batch figure is the reference for window cells.
      const theirs = perRound.map((r) => pick(r.redisBenchmark, `P${cell.pipeline} batch`));
      const medianOf = (xs, get) => median(xs.map(get).filter((v) => v != null));
      const r = ratiosOf(ours, theirs);
      const row = {
        cell: `${test} ${cell.name}`,
        redisBenchmarkOps: medianOf(theirs, (t) => t.opsPerSec),
        redisBenchdbOps: medianOf(ours, (o) => o.opsPerSec),
        ratio: r.ratio,
        minRatio: r.min,
        maxRatio: r.max,
        // The same ratio by the server's count over the middle of each run (null: too short to say).
        serverRatio: r.serverRatio,
        serverInterval: r.serverInterval,
        // What a request cost the server's main thread under redis-benchdb over under redis-benchmark.
        serverCostRatio: r.serverCostRatio,
        redisBenchdbServerUsPerCall: medianOf(ours, (o) => o.serverUsPerCall),
        redisBenchmarkServerUsPerCall: medianOf(theirs, (t) => t.serverUsPerCall),
        redisBenchdbP50Us: medianOf(ours, (o) => o.latencyUs.p50Us),
        redisBenchdbP99Us: medianOf(ours, (o) => o.latencyUs.p99Us),
        redisBenchmarkP50Us: medianOf(theirs, (t) => t.latencyUs.p50Us),
        redisBenchmarkP99Us: medianOf(theirs, (t) => t.latencyUs.p99Us),
        serverMainThreadCpuShare: medianOf(ours, (o) => o.saturation.serverMainThreadCpuShare),
        limitedBy: mostCommon(ours.map((o) => o.saturation.limitedBy)),
        crossCheckMatches: `${ours.filter((o) => o.crossCheck?.status === 'match').length}/${ours.length}`,
      };
      if (cell.mode === 'window') {
        const p1 = perRound.map((r) => pick(r.redisBenchmark, 'P1 batch').opsPerSec);
        row.ratioVsP16Batch = row.ratio;
        row.ratioVsP1Batch = median(ours.map((o, i) => o.opsPerSec / p1[i]));
      }
      return row;
    }),
  );
}

// A function, not a const: the tables print from the top-level await above, before a const here is set.
function us(x) {
  return Number.isNaN(x) || x == null ? 'n/a' : x.toFixed(2);
}

function printTable(m, rows) {
  const facts = `${m.cpu}, ${m.nproc} CPUs; redis-server ${m.redisServer}; ${m.redisBenchmark}; node ${m.node}`;
  const n = `${requestsFor(1)} at P1, ${requestsFor(16)} at P16`;
  console.log(
    `Machine: ${facts}\nRounds: ${rounds}; requests per run: ${n}; ${pinning ? `redis-server pinned to CPU ${pinning.server}, each tool to CPU ${pinning.tools}` : 'not pinned'}`,
  );
  console.log('ratio = redis-benchdb / redis-benchmark ops/s, median of per-round ratios');
  console.log(
    "by server count = the same ratio, of the server's own SET or GET rate over the middle 60% of each run",
  );
  console.log(
    '95% interval = of that ratio (geometric mean of the rounds): where it holds 1, the rounds cannot tell the tools apart',
  );
  console.log(
    "server µs/request = the server main thread's CPU per SET or GET over that middle 60% (benchdb/benchmark, and their ratio)\n",
  );
  const head = [
    ...['cell', 'redis-benchmark ops/s', 'redis-benchdb ops/s', 'ratio', 'min', 'max', 'by server count'],
    ...['95% interval', 'server µs/request', 'ratio'],
    ...['benchdb p50/p99 µs', 'benchmark p50/p99 µs', 'server main CPU', 'benchdb limited by', 'cross-check'],
  ];
  const body = rows.map((r) => [
    ...[r.cell, fmt(r.redisBenchmarkOps), fmt(r.redisBenchdbOps)],
    ...[r.ratio, r.minRatio, r.maxRatio].map((x) => x.toFixed(3)),
    r.serverRatio === null ? 'n/a' : r.serverRatio.toFixed(3),
    intervalText(r.serverInterval),
    `${us(r.redisBenchdbServerUsPerCall)}/${us(r.redisBenchmarkServerUsPerCall)}`,
    r.serverCostRatio === null ? 'n/a' : r.serverCostRatio.toFixed(3),
    `${fmt(r.redisBenchdbP50Us)}/${fmt(r.redisBenchdbP99Us)}`,
    `${fmt(r.redisBenchmarkP50Us)}/${fmt(r.redisBenchmarkP99Us)}`,
    Number.isNaN(r.serverMainThreadCpuShare) ? 'n/a' : r.serverMainThreadCpuShare.toFixed(2),
    ...[r.limitedBy, r.crossCheckMatches],
  ]);
  console.log(markdownTable(head, body));
  console.log('\nWindow mode (P16) against redis-benchmark, median of per-round ratios:');
  for (const r of rows.filter((x) => x.ratioVsP1Batch !== undefined)) {
    const [vs16, vs1] = [r.ratioVsP16Batch.toFixed(3), r.ratioVsP1Batch.toFixed(3)];
    console.log(`  ${r.cell}: ${vs16} x redis-benchmark P16 batch, ${vs1} x redis-benchmark P1 batch`);
  }
}

// The most common value with its count, e.g. 'server (4/5)'.
function mostCommon(xs) {
  const count = (v) => xs.filter((x) => x === v).length;
  const top = [...new Set(xs)].sort((a, b) => count(b) - count(a))[0];
  return `${top} (${count(top)}/${xs.length})`;
}
