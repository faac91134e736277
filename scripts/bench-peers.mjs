// redis-benchdb against its peer redis-benchmark, side by side on one throwaway redis-server.
//   pnpm bench:peers [--rounds 5] [--requests N] [--scale X] [--json] [--cli PATH]
// Cells: SET and GET, 256-byte values, 100,000 keys, 50 connections, at pipeline 1 (batch),
// pipeline 16 (batch, as redis-benchmark -P) and redis-benchdb's window mode at pipeline 16.
// Requests per run: 200,000 at P1 and 1,000,000 at P16 (or --requests N for all), times --scale.
// Each round runs both tools on identical cells, one at a time, alternating which goes first, and
// the summary reports medians of per-round ratios so that drift between rounds cancels out.

import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { startServer } = await import(new URL('../packages/engine/dist/index.js', import.meta.url));

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    // Pin the server to the last CPU and both tools to the others, identically: on a small
    // machine the scheduler otherwise moves them onto one core now and then, which is noise.
    pin: { type: 'boolean', default: true },
    requests: { type: 'string' },
    scale: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
    // Lets the parsing be tested against a stand-in while the real CLI is being written.
    cli: { type: 'string', default: fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url)) },
  },
});
function positive(name, integer) {
  const v = Number(args[name]);
  if (v > 0 && (!integer || Number.isInteger(v))) return v;
  console.error(
    `bench-peers: --${name} must be a positive ${integer ? 'integer' : 'number'}, got ${args[name]}`,
  );
  process.exit(2);
}
const rounds = positive('rounds', true);
const scale = positive('scale', false);
const fixedRequests = args.requests === undefined ? null : positive('requests', true);
const requestsFor = (p) =>
  Math.max(1000, Math.round((fixedRequests ?? (p === 1 ? 200_000 : 1_000_000)) * scale));

const COMMON = '-t set,get -c 50 -d 256 -r 100000';
const CELLS = [
  { name: 'P1 batch', pipeline: 1, mode: 'batch' },
  { name: 'P16 batch', pipeline: 16, mode: 'batch' },
  { name: 'P16 window', pipeline: 16, mode: 'window' },
];
const log = (msg) => process.stderr.write(`[bench-peers] ${msg}\n`);
const fmt = (x) => Math.round(x).toLocaleString('en-US');

let server = null;
let pinning = null;
let child = null;
let stopping = null;

// Idempotent: SIGINT, an unexpected server exit and the main flow may all ask at once.
function shutdown(code, why) {
  if (stopping) return stopping;
  if (why) console.error(`bench-peers: ${why}`);
  child?.kill('SIGKILL');
  stopping = (server?.stop() ?? Promise.resolve()).catch(() => {}).then(() => process.exit(code));
  return stopping;
}
process.on('SIGINT', () => shutdown(130, 'interrupted: stopping the server'));

try {
  server = await startServer();
  // startServer picks a free port, so this cannot be the production server; make sure anyway.
  if (server.port === 6379) throw new Error('refusing to load port 6379');
  pinning = choosePinning(server.pid);
  log(
    pinning
      ? `pinned: redis-server on CPU ${pinning.server}, both tools on CPU ${pinning.tools}`
      : 'not pinned',
  );
  server.exited.then(({ code, signal }) =>
    shutdown(1, `redis-server exited (code ${code}, signal ${signal})`),
  );
  const machine = describeMachine(server.version);
  log(`redis-server ${server.version} on 127.0.0.1:${server.port}; ${machine.cpu}, ${machine.nproc} CPUs`);

  const perRound = [];
  for (let round = 1; round <= rounds; round++) {
    const runs = { round, redisBenchmark: {}, redisBenchdb: {} };
    // Odd rounds start with redis-benchmark, even rounds with redis-benchdb, so that neither tool
    // always gets the warmer (or cooler) machine. null stands for redis-benchmark.
    for (const pipeline of [1, 16]) {
      const ours = CELLS.filter((c) => c.pipeline === pipeline);
      for (const cell of round % 2 === 1 ? [null, ...ours] : [...ours, null]) {
        const key = cell ? cell.name : `P${pipeline} batch`;
        const result = cell ? await runOurs(cell) : await runRedisBenchmark(pipeline);
        (cell ? runs.redisBenchdb : runs.redisBenchmark)[key] = result;
        const figures = result.map((r) => `${r.test} ${fmt(r.opsPerSec)} ops/s`).join(', ');
        log(`round ${round}/${rounds} ${cell ? 'redis-benchdb' : 'redis-benchmark'} ${key}: ${figures}`);
      }
    }
    perRound.push(runs);
  }

  const rows = summarize(perRound);
  const requests = { P1: requestsFor(1), P16: requestsFor(16) };
  if (args.json) console.log(JSON.stringify({ machine, rounds, scale, requests, rows, perRound }, null, 2));
  else printTable(machine, rows);
  await shutdown(0);
} catch (err) {
  if (!stopping) console.error(`bench-peers: ${err.message}`);
  await shutdown(1);
}

// Both tools see the same environment and the same starting state: an empty database.
async function runRedisBenchmark(pipeline) {
  await flushAll();
  const argv = `-h 127.0.0.1 -p ${server.port} ${COMMON} -n ${requestsFor(pipeline)} -P ${pipeline} --csv`;
  const out = await run('redis-benchmark', 'redis-benchmark', argv.split(' '));
  // CSV of double-quoted fields: each line is a JSON array once wrapped in brackets.
  const [header, ...lines] = out.split('\n').filter((l) => l.startsWith('"'));
  const names = JSON.parse(`[${header}]`);
  const rows = lines.map((l) => Object.fromEntries(JSON.parse(`[${l}]`).map((v, i) => [names[i], v])));
  if (rows.length !== 2) throw new Error(`redis-benchmark: expected SET and GET rows, got:\n${out}`);
  // Shaped like redis-benchdb's cells; its latencies are in ms, redis-benchdb's in µs.
  return rows.map((r) => ({
    test: r.test,
    opsPerSec: Number(r.rps),
    latencyUs: { p50Us: r.p50_latency_ms * 1000, p99Us: r.p99_latency_ms * 1000 },
  }));
}

async function runOurs(cell) {
  await flushAll();
  const flags = `-n ${requestsFor(cell.pipeline)} -P ${cell.pipeline} --pipeline-mode ${cell.mode} --json`;
  const argv = [args.cli, ...`run -h 127.0.0.1 -p ${server.port} ${COMMON} ${flags}`.split(' ')];
  const out = await run('redis-benchdb', process.execPath, argv);
  let cells;
  try {
    cells = JSON.parse(out).cells;
  } catch {
    // reported just below
  }
  if (cells?.length !== 2) throw new Error(`redis-benchdb: want a JSON document with 2 cells, got:\n${out}`);
  const bad = cells.find((c) => c.error || c.incomplete);
  if (bad) throw new Error(`redis-benchdb: ${bad.test} ${cell.name} failed: ${bad.error ?? 'incomplete'}`);
  // Keep the whole cell for --json, minus the encoded histograms and per-trial copies, which are
  // long and not figures. A run of one trial has opsPerSec.median equal to that trial's figure.
  return cells.map(({ histogram: _h, responseHistogram: _r, trials: _t, ...c }) => ({
    ...c,
    opsPerSec: c.opsPerSec.median,
  }));
}

function run(tool, bin, argv) {
  return new Promise((resolve, reject) => {
    const out = { stdout: '', stderr: '' };
    const [cmd, cmdArgs] = pinning ? ['taskset', ['-c', pinning.tools, bin, ...argv]] : [bin, argv];
    child = spawn(cmd, cmdArgs, { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => (out.stdout += d));
    child.stderr.on('data', (d) => (out.stderr += d));
    child.once('error', (e) => reject(new Error(`${tool} could not start: ${e.message}`)));
    child.once('close', (code, signal) => {
      child = null;
      if (code === 0) return resolve(out.stdout);
      const how = signal ?? `exit code ${code}`;
      reject(new Error(`${tool} failed (${how}): ${bin} ${argv.join(' ')}\n${out.stderr.trim()}`));
    });
  });
}

/** With taskset and 2+ CPUs: the server on the last CPU, the tools on the rest. */
function choosePinning(serverPid) {
  if (!args.pin) return null;
  const n = Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  try {
    if (n < 2) return null;
    execFileSync('taskset', ['-cp', String(n - 1), String(serverPid)], { stdio: 'ignore' });
    return { server: String(n - 1), tools: n === 2 ? '0' : `0-${n - 2}` };
  } catch {
    return null;
  }
}

// The server is this script's own throwaway instance, so emptying it between runs touches no
// one's data; it gives both tools the same starting state.
// A raw RESP FLUSHALL: enough for one command, and keeps the script free of client libraries.
function flushAll() {
  return new Promise((resolve, reject) => {
    const sock = net.connect(server.port, '127.0.0.1', () => sock.write('*1\r\n$8\r\nFLUSHALL\r\n'));
    sock.once('data', (d) => {
      sock.destroy();
      String(d).startsWith('+OK') ? resolve() : reject(new Error(`FLUSHALL: ${d}`));
    });
    sock.once('error', reject);
  });
}

function summarize(perRound) {
  return CELLS.flatMap((cell) =>
    ['SET', 'GET'].map((test) => {
      const pick = (runs, key) => runs[key].find((r) => r.test === test);
      const ours = perRound.map((r) => pick(r.redisBenchdb, cell.name));
      // redis-benchmark has no window mode: its P16 batch figure is the reference for window cells.
      const theirs = perRound.map((r) => pick(r.redisBenchmark, `P${cell.pipeline} batch`));
      const ratios = ours.map((o, i) => o.opsPerSec / theirs[i].opsPerSec);
      const medianOf = (xs, get) => median(xs.map(get).filter((v) => v != null));
      const row = {
        cell: `${test} ${cell.name}`,
        redisBenchmarkOps: medianOf(theirs, (t) => t.opsPerSec),
        redisBenchdbOps: medianOf(ours, (o) => o.opsPerSec),
        ratio: median(ratios),
        minRatio: Math.min(...ratios),
        maxRatio: Math.max(...ratios),
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

function printTable(m, rows) {
  const facts = `${m.cpu}, ${m.nproc} CPUs; redis-server ${m.redisServer}; ${m.redisBenchmark}; node ${m.node}`;
  const n = `${requestsFor(1)} at P1, ${requestsFor(16)} at P16`;
  console.log(
    `Machine: ${facts}\nRounds: ${rounds}; requests per run: ${n}; ${pinning ? `redis-server pinned to CPU ${pinning.server}, each tool to CPU ${pinning.tools}` : 'not pinned'}`,
  );
  console.log('ratio = redis-benchdb / redis-benchmark ops/s, median of per-round ratios\n');
  const head = [
    ...['cell', 'redis-benchmark ops/s', 'redis-benchdb ops/s', 'ratio', 'min', 'max'],
    ...['benchdb p50/p99 µs', 'benchmark p50/p99 µs', 'server main CPU', 'benchdb limited by', 'cross-check'],
  ];
  const body = rows.map((r) => [
    ...[r.cell, fmt(r.redisBenchmarkOps), fmt(r.redisBenchdbOps)],
    ...[r.ratio, r.minRatio, r.maxRatio].map((x) => x.toFixed(3)),
    `${fmt(r.redisBenchdbP50Us)}/${fmt(r.redisBenchdbP99Us)}`,
    `${fmt(r.redisBenchmarkP50Us)}/${fmt(r.redisBenchmarkP99Us)}`,
    Number.isNaN(r.serverMainThreadCpuShare) ? 'n/a' : r.serverMainThreadCpuShare.toFixed(2),
    ...[r.limitedBy, r.crossCheckMatches],
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const pad = (c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]));
  const line = (cols) => `| ${cols.map(pad).join(' | ')} |`;
  console.log(line(head));
  console.log(line(widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`))));
  for (const b of body) console.log(line(b));
  console.log('\nWindow mode (P16) against redis-benchmark, median of per-round ratios:');
  for (const r of rows.filter((x) => x.ratioVsP1Batch !== undefined)) {
    const [vs16, vs1] = [r.ratioVsP16Batch.toFixed(3), r.ratioVsP1Batch.toFixed(3)];
    console.log(`  ${r.cell}: ${vs16} x redis-benchmark P16 batch, ${vs1} x redis-benchmark P1 batch`);
  }
}

function describeMachine(redisServer) {
  const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1].trim() ?? 'unknown';
  const nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  const redisBenchmark = execFileSync('redis-benchmark', ['--version'], { encoding: 'utf8' }).trim();
  return { cpu, nproc, redisServer, redisBenchmark, node: process.version };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

// The most common value with its count, e.g. 'server (4/5)'.
function mostCommon(xs) {
  const count = (v) => xs.filter((x) => x === v).length;
  const top = [...new Set(xs)].sort((a, b) => count(b) - count(a))[0];
  return `${top} (${count(top)}/${xs.length})`;
}
