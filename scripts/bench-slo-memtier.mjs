// redis-benchdb's open loop against memtier_benchmark's --rate-limiting, at the same offered rates
// from well below to well past one throwaway redis-server's capacity: how their p99s diverge once
// requests queue.
//   pnpm bench:slo-memtier --memtier PATH [--test get|set] [--connections 50] [--pipeline 1]
//     [--duration 10] [--keyspace 1000000] [--capacity OPS] [--rates 0.25,0.5,...] [--no-pin] [--json]
// PATH is a memtier_benchmark binary (node scripts/build-memtier.mjs ARCHIVE builds one).
//
// memtier's --rate-limiting is per connection, a whole number of requests per second, released in
// bursts: every interval (at least 20 ms) a connection may send ceil(rate/50) more, and what it
// could not send in an interval is dropped, not carried over. Each request is timed from its actual
// send. So past capacity memtier sends only what the server takes and its p99 stays near the
// closed loop's: the requests that would have queued are never sent. redis-benchdb's open loop
// keeps the schedule: a request late to leave is timed from when it was meant to leave (p99 from
// the intended send), so the queue shows. It also times from the actual send, as memtier does,
// printed beside it. Both run the same total rate: the per-connection rate memtier is given, as its
// own arithmetic turns it into bursts, times the connections.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchServer, benchSession, fmt, markdownTable, positiveFlag } from './lib/bench.mjs';
import { readMemtierRow } from './lib/memtier.mjs';

const { BenchSession, DEFAULT_CELL_OPTIONS, DEFAULT_TARGET, pinProcess } = await import(
  '@redis-benchdb/engine'
);

const SCRIPT = 'bench-slo-memtier';
const { values: args } = parseArgs({
  options: {
    memtier: { type: 'string' },
    test: { type: 'string', default: 'get' },
    connections: { type: 'string', default: '50' },
    pipeline: { type: 'string', default: '1' },
    duration: { type: 'string', default: '10' },
    keyspace: { type: 'string', default: '1000000' },
    capacity: { type: 'string' },
    rates: { type: 'string', default: '0.25,0.5,0.75,0.9,1,1.1,1.25,1.5,2' },
    pin: { type: 'boolean', default: true },
    json: { type: 'boolean', default: false },
  },
  allowNegative: true,
});
const usage = (/** @type {string} */ msg) => {
  console.error(`${SCRIPT}: ${msg}`);
  process.exit(2);
};
if (!args.memtier)
  usage(
    'give a memtier_benchmark binary: --memtier PATH (build one with: node scripts/build-memtier.mjs memtier_benchmark-2.3.0.tar.gz)',
  );
const test = String(args.test).toLowerCase();
if (test !== 'get' && test !== 'set') usage(`--test must be get or set, got ${args.test}`);
const connections = positiveFlag(SCRIPT, args, 'connections', { integer: true });
const pipeline = positiveFlag(SCRIPT, args, 'pipeline', { integer: true });
// memtier's --test-time takes whole seconds.
const durationSec = positiveFlag(SCRIPT, args, 'duration', { integer: true });
const keyspace = positiveFlag(SCRIPT, args, 'keyspace', { integer: true });
const givenCapacity = args.capacity === undefined ? null : positiveFlag(SCRIPT, args, 'capacity');
const multiples = String(args.rates)
  .split(',')
  .map((s) => Number(s.trim()));
if (multiples.some((m) => !(m > 0)))
  usage(`--rates must be positive multiples of the capacity, e.g. 0.5,1,1.5; got ${args.rates}`);

const VALUE_SIZE = 256;
/** Our open loop's warm-up before each measured rate, as a search step has (slo/search.ts). */
const WARMUP_SEC = 0.5;

/**
 * memtier's own arithmetic for --rate-limiting=rate (memtier_benchmark.cpp, 2.3.0): requests per
 * interval and the interval; the total it offers over all connections.
 * @param {number} rate per connection
 */
function memtierOffered(rate) {
  const perInterval = Math.ceil(rate / 50);
  const eventsPerSec = Math.floor(rate / perInterval);
  const intervalUs = Math.floor(1_000_000 / eventsPerSec);
  return { perInterval, intervalUs, totalOpsPerSec: (connections * perInterval * 1_000_000) / intervalUs };
}

const session = benchSession(SCRIPT);
const { log } = session;

await session.main(async () => {
  const {
    server,
    pinning: pin,
    machine,
  } = await benchServer(session, { pin: args.pin, tools: 'both tools' });
  if (pin.server) {
    // memtier runs under taskset; this process too (our load runs in its worker threads), on the same CPUs.
    const self = await pinProcess(process.pid, pin.tools);
    if (!self.applied) throw new Error(`could not pin this process to CPU ${pin.tools}: ${self.error}`);
  }
  const runOurs = await ourOpenLoop(server);
  const { runMemtier, memtierAt } = memtierTool(server);

  if (test === 'get') {
    // Each tool reads keys it wrote itself (their names differ), every one of 1..keyspace.
    log(`memtier: writing keys 1..${keyspace}`);
    await runMemtier(['--key-pattern=P:P', '--ratio=1:0', '-n', 'allkeys'], 'preload');
  }
  log(
    `closed loop, ${durationSec} s each: the server's capacity at ${connections} connections, pipeline ${pipeline}`,
  );
  const closedOurs = await runOurs(undefined);
  const closedMemtier = await memtierAt(null);
  const capacity = givenCapacity ?? closedOurs.achievedOpsPerSec;
  log(
    `capacity ${fmt(capacity)} ops/s (${givenCapacity ? '--capacity' : 'redis-benchdb closed loop'}); closed loop: redis-benchdb ${fmt(closedOurs.achievedOpsPerSec)}, memtier ${fmt(closedMemtier.achievedOpsPerSec)}`,
  );
  const rows = await measureRates(capacity, runOurs, memtierAt);

  const misses = [closedOurs, closedMemtier, ...rows.flatMap((r) => [r.ours, r.memtier])].filter(
    (x) => x.hitRatio !== null && x.hitRatio < 0.99,
  );
  if (misses.length)
    log(
      `warning: ${misses.length} runs read misses (hit ratio below 0.99): GET figures are not like for like`,
    );
  if (args.json) {
    console.log(
      JSON.stringify(
        {
          machine,
          server: { port: server.port, pinned: pin.server },
          capacity,
          closedOurs,
          closedMemtier,
          rows,
        },
        null,
        2,
      ),
    );
    return;
  }
  printTable(capacity, rows);
});

/** Our open loop at a total rate (or closed loop, undefined) against the server, for durationSec. */
async function ourOpenLoop(/** @type {{ port: number }} */ server) {
  const ours = await BenchSession.open({ ...DEFAULT_TARGET, host: '127.0.0.1', port: server.port });
  session.own({ stop: () => ours.close() });
  const cell = {
    ...DEFAULT_CELL_OPTIONS,
    test: test.toUpperCase(),
    connections,
    pipelineDepth: pipeline,
    pipelineMode: 'window',
    valueSizeBytes: VALUE_SIZE,
    keyspaceSize: keyspace,
    preload: test === 'get',
    requests: undefined,
    durationSec,
    warmupSec: WARMUP_SEC,
  };
  return async (/** @type {number | undefined} */ rate) => {
    const r = await ours.runCell({ ...cell, rateOpsPerSec: rate });
    if (r.incomplete) throw new Error(`redis-benchdb at ${rate ?? 'closed loop'}: ${r.error}`);
    return {
      achievedOpsPerSec: r.completed / durationSec,
      p99Us: (r.responseTimeUs ?? r.latencyUs).p99Us,
      p99FromSendUs: r.latencyUs.p99Us,
      hitRatio: r.hitRatio,
    };
  };
}

/** memtier_benchmark against the server: any run (its JSON), and one at a rate per connection (or closed loop, null). */
function memtierTool(/** @type {{ port: number }} */ server) {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-slo-memtier-'));
  session.own({ stop: async () => rmSync(dir, { recursive: true, force: true }) });
  const common = [
    ...[
      '-s',
      '127.0.0.1',
      '-p',
      String(server.port),
      '--protocol=redis',
      '-t',
      '1',
      '-c',
      String(connections),
    ],
    ...[`--pipeline=${pipeline}`, '-d', String(VALUE_SIZE), '--key-minimum=1', `--key-maximum=${keyspace}`],
    '--hide-histogram',
  ];
  const runMemtier = async (/** @type {string[]} */ extra, /** @type {string} */ name) => {
    const out = join(dir, `${name}.json`);
    await session.run('memtier_benchmark', args.memtier, [...common, ...extra, '--json-out-file', out]);
    return readFileSync(out, 'utf8');
  };
  const memtierAt = async (/** @type {number | null} */ ratePerConnection) => {
    const json = await runMemtier(
      [
        ...['--key-pattern=R:R', '--distinct-client-seed', `--ratio=${test === 'set' ? '1:0' : '0:1'}`],
        `--test-time=${durationSec}`,
        ...(ratePerConnection === null ? [] : [`--rate-limiting=${ratePerConnection}`]),
      ],
      `rate-${ratePerConnection}`,
    );
    const row = readMemtierRow(json, /** @type {'set'|'get'} */ (test));
    return { achievedOpsPerSec: row.opsPerSec, p99Us: row.latencyUs.p99Us, hitRatio: row.hitRatio };
  };
  return { runMemtier, memtierAt };
}

/**
 * Both tools at each multiple of the capacity, memtier at its own per-connection rate and ours at the
 * total memtier offers (memtierOffered), so both offer the same load.
 * @param {number} capacity
 * @param {(rate: number | undefined) => Promise<any>} runOurs
 * @param {(ratePerConnection: number | null) => Promise<any>} memtierAt
 */
async function measureRates(capacity, runOurs, memtierAt) {
  const rows = [];
  for (const [i, m] of multiples.entries()) {
    const perConnection = Math.max(1, Math.round((m * capacity) / connections));
    const offered = memtierOffered(perConnection);
    // Which tool goes first turns around each rate, so drift over the run falls on both.
    /** @type {Record<string, any>} */
    const pair = {};
    for (const tool of i % 2 ? ['memtier', 'ours'] : ['ours', 'memtier']) {
      log(
        `${fmt(offered.totalOpsPerSec)} ops/s offered (${m}x): ${tool === 'ours' ? 'redis-benchdb' : 'memtier'}`,
      );
      pair[tool] = tool === 'ours' ? await runOurs(offered.totalOpsPerSec) : await memtierAt(perConnection);
    }
    rows.push({ multiple: m, perConnection, offered, ...pair });
  }
  return rows;
}

/** The markdown table of the rates, with the run's shape above it and the hit ratios below. */
function printTable(/** @type {number} */ capacity, /** @type {any[]} */ rows) {
  const us = (/** @type {number} */ x) => fmt(x);
  const ratio = (/** @type {number} */ a, /** @type {number} */ b) => (b > 0 ? (a / b).toFixed(2) : '-');
  console.log(
    `\n${test.toUpperCase()}, ${connections} connections, pipeline ${pipeline}, ${VALUE_SIZE} B values, ${fmt(keyspace)} keys, ${durationSec} s per rate; capacity ${fmt(capacity)} ops/s\n`,
  );
  console.log(
    markdownTable(
      [
        'offered ops/s',
        'x capacity',
        'memtier achieved',
        'memtier p99 µs',
        'ours achieved',
        'ours p99 µs (intended send)',
        'ours p99 µs (actual send)',
        'p99 ours / memtier',
      ],
      rows.map((r) => [
        fmt(r.offered.totalOpsPerSec),
        String(r.multiple),
        fmt(r.memtier.achievedOpsPerSec),
        us(r.memtier.p99Us),
        fmt(r.ours.achievedOpsPerSec),
        us(r.ours.p99Us),
        us(r.ours.p99FromSendUs),
        ratio(r.ours.p99Us, r.memtier.p99Us),
      ]),
      0,
    ),
  );
  console.log(
    `\nmemtier --rate-limiting=N per connection: N/50 rounded up per burst; ${connections} connections. Hit ratio (GET): ours ${rows.map((r) => r.ours.hitRatio ?? '-').join(' ')}; memtier ${rows.map((r) => (r.memtier.hitRatio === null ? '-' : r.memtier.hitRatio.toFixed(3))).join(' ')}`,
  );
}
