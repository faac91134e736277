// redis-benchdb --cluster against redis-benchmark --cluster, on one throwaway local cluster.
//   pnpm -s build && node scripts/bench-cluster.mjs [--rounds 3] [--primaries 3] [--threads 1] [--scale X] [--json]
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

import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { startLocalCluster } = await import(new URL('../packages/engine/dist/index.js', import.meta.url));

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    primaries: { type: 'string', default: '3' },
    threads: { type: 'string', default: '1' },
    scale: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
  },
});
function positive(name) {
  const v = Number(args[name]);
  if (v > 0) return v;
  console.error(`bench-cluster: --${name} must be a positive number, got ${args[name]}`);
  process.exit(2);
}
const rounds = Math.round(positive('rounds'));
const primaries = Math.round(positive('primaries'));
const scale = positive('scale');
const threads = Math.round(positive('threads'));
const requestsFor = (p) => Math.max(1000, Math.round((p === 1 ? 100_000 : 500_000) * scale));
const CLI = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
const COMMON = `-t set,get -d 256 -r 100000 --threads ${threads}`;
const CELLS = [
  { name: 'P1 batch', pipeline: 1, mode: 'batch' },
  { name: 'P16 batch', pipeline: 16, mode: 'batch' },
  { name: 'P16 window', pipeline: 16, mode: 'window' },
];
const log = (msg) => process.stderr.write(`[bench-cluster] ${msg}\n`);
const fmt = (x) => Math.round(x).toLocaleString('en-US');

let cluster = null;
let child = null;
let stopping = null;
function shutdown(code, why) {
  if (stopping) return stopping;
  if (why) console.error(`bench-cluster: ${why}`);
  child?.kill('SIGKILL');
  stopping = (cluster?.stop() ?? Promise.resolve()).catch(() => {}).then(() => process.exit(code));
  return stopping;
}
process.on('SIGINT', () => shutdown(130, 'interrupted: stopping the cluster'));

try {
  cluster = await startLocalCluster({ primaries });
  // startLocalCluster picks free ports; never the production server.
  if (cluster.nodes.some((n) => n.port === 6379)) throw new Error('refusing to load port 6379');
  const seed = cluster.nodes[0].port;
  const machine = describeMachine(cluster.nodes[0].server.version);
  log(`${primaries} primaries on 127.0.0.1:${cluster.nodes.map((n) => n.port).join(',')}; not pinned`);
  const perRound = [];
  for (let round = 1; round <= rounds; round++) {
    const runs = { round, redisBenchmark: {}, redisBenchdb: {} };
    for (const pipeline of [1, 16]) {
      const ours = CELLS.filter((c) => c.pipeline === pipeline);
      for (const cell of round % 2 === 1 ? [null, ...ours] : [...ours, null]) {
        const key = cell ? cell.name : `P${pipeline} batch`;
        const result = cell ? await runOurs(seed, cell) : await runRedisBenchmark(seed, pipeline);
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
  await shutdown(0);
} catch (err) {
  if (!stopping) console.error(`bench-cluster: ${err.message}`);
  await shutdown(1);
}

async function runRedisBenchmark(port, pipeline) {
  await flushAll();
  const argv = `--cluster -h 127.0.0.1 -p ${port} ${COMMON} -c ${50 * primaries} -n ${requestsFor(pipeline)} -P ${pipeline} --csv`;
  const out = await run('redis-benchmark', 'redis-benchmark', argv.split(' '));
  const [header, ...lines] = out.split('\n').filter((l) => l.startsWith('"'));
  const names = JSON.parse(`[${header}]`);
  const rows = lines.map((l) => Object.fromEntries(JSON.parse(`[${l}]`).map((v, i) => [names[i], v])));
  if (rows.length !== 2) throw new Error(`redis-benchmark: expected SET and GET rows, got:\n${out}`);
  return rows.map((r) => ({
    test: r.test,
    opsPerSec: Number(r.rps),
    latencyUs: { p50Us: r.p50_latency_ms * 1000, p99Us: r.p99_latency_ms * 1000 },
  }));
}

async function runOurs(port, cell) {
  await flushAll();
  const flags = `-n ${requestsFor(cell.pipeline)} -P ${cell.pipeline} --pipeline-mode ${cell.mode} --json --no-store`;
  const out = await run('redis-benchdb', process.execPath, [
    CLI,
    ...`run --cluster -h 127.0.0.1 -p ${port} ${COMMON} -c 50 ${flags}`.split(' '),
  ]);
  const cells = JSON.parse(out).cells;
  const bad = cells.find((c) => c.error || c.incomplete || Object.keys(c.errors).length > 0);
  if (bad)
    throw new Error(
      `redis-benchdb: ${bad.test} ${cell.name} failed: ${bad.error ?? JSON.stringify(bad.errors)}`,
    );
  // One trial: its ops/s is the cell's median; histograms are long and not figures.
  return cells.map(({ histogram: _h, responseHistogram: _r, trials: _t, ...c }) => ({
    ...c,
    opsPerSec: c.opsPerSec.median,
  }));
}

function run(tool, bin, argv) {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child = spawn(bin, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', (e) => reject(new Error(`${tool} could not start: ${e.message}`)));
    child.once('close', (code, signal) => {
      child = null;
      if (code === 0) return resolve(stdout);
      reject(
        new Error(
          `${tool} failed (${signal ?? `exit code ${code}`}): ${bin} ${argv.join(' ')}\n${stderr.trim()}`,
        ),
      );
    });
  });
}

// The cluster is this script's own; emptying its primaries gives both tools the same start.
function flushAll() {
  return Promise.all(
    cluster.primaries.map(
      (n) =>
        new Promise((resolve, reject) => {
          const sock = net.connect(n.port, '127.0.0.1', () => sock.write('*1\r\n$8\r\nFLUSHALL\r\n'));
          sock.once('data', (d) => {
            sock.destroy();
            String(d).startsWith('+OK') ? resolve() : reject(new Error(`FLUSHALL: ${d}`));
          });
          sock.once('error', reject);
        }),
    ),
  );
}

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
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cols) =>
    `| ${cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log(line(head));
  console.log(line(widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`))));
  for (const b of body) console.log(line(b));
  console.log('\nWindow cells are compared with redis-benchmark P16 batch (it has no window mode).');
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
