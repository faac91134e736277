// Unix socket against TCP loopback, measured by redis-benchdb and by redis-benchmark on one server.
//   pnpm bench:transport [--rounds 5] [--requests N] [--scale X] [--json] [--no-pin]
// The Redis docs ("Redis benchmark", factors impacting performance) say unix domain sockets can give
// about 50% more throughput than TCP/IP loopback on Linux, and that the gain shrinks with pipelining.
// Cells: SET and GET, 256-byte values, 100,000 keys, 50 connections, pipeline 1 and pipeline 16
// (batch, as redis-benchmark -P). Requests per run: 200,000 at P1 and 1,000,000 at P16 (or
// --requests N), times --scale. One throwaway redis-server listens on both a free loopback port and
// a unix socket in its temp dir; every round runs each tool over both links, alternating which link
// goes first, and the summary is the median of per-round unix/tcp ratios.

import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { startServer, pinProcess } = await import(
  new URL('../packages/engine/dist/index.js', import.meta.url)
);
const CLI = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    pin: { type: 'boolean', default: true },
    requests: { type: 'string' },
    scale: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
  },
  allowNegative: true,
});
const positive = (name) => {
  const v = Number(args[name]);
  if (v > 0) return v;
  console.error(`bench-transport: --${name} must be a positive number, got ${args[name]}`);
  process.exit(2);
};
const rounds = Math.round(positive('rounds'));
const scale = positive('scale');
const fixed = args.requests === undefined ? null : positive('requests');
const requestsFor = (p) => Math.max(1000, Math.round((fixed ?? (p === 1 ? 200_000 : 1_000_000)) * scale));
const COMMON = ['-t', 'set,get', '-c', '50', '-d', '256', '-r', '100000'];
const log = (m) => process.stderr.write(`[bench-transport] ${m}\n`);
const fmt = (x) => Math.round(x).toLocaleString('en-US');

let server = null;
let child = null;
let toolCpus = null;
const stop = async (code, why) => {
  if (why) console.error(`bench-transport: ${why}`);
  child?.kill('SIGKILL');
  await server?.stop().catch(() => {});
  process.exit(code);
};
process.on('SIGINT', () => stop(130, 'interrupted: stopping the server'));

try {
  server = await startServer({ unixSocketInDir: true });
  if (server.port === 6379) throw new Error('refusing to load port 6379');
  const n = os.cpus().length;
  // The server on the last CPU, the tools on the others: the scheduler cannot put both on one core.
  if (args.pin && n >= 2) {
    const pin = await pinProcess(server.pid, String(n - 1));
    if (pin.applied) toolCpus = n === 2 ? '0' : `0-${n - 2}`;
    else log(`not pinned: ${pin.error}`);
  }
  const links = { tcp: ['-h', '127.0.0.1', '-p', String(server.port)], unix: ['-s', server.unixSocket] };
  log(`redis-server ${server.version}: 127.0.0.1:${server.port} and ${server.unixSocket}`);

  const perRound = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? ['tcp', 'unix'] : ['unix', 'tcp'];
    const r = { round };
    for (const pipeline of [1, 16])
      for (const tool of ['redis-benchmark', 'redis-benchdb'])
        for (const link of order) {
          await flushAll();
          const ops =
            tool === 'redis-benchmark'
              ? await redisBenchmark(links[link], pipeline)
              : await ours(links[link], pipeline);
          for (const [test, v] of Object.entries(ops)) r[`${tool} ${test} P${pipeline} ${link}`] = v;
          log(
            `round ${round}/${rounds} ${tool} P${pipeline} ${link}: SET ${fmt(ops.SET)}, GET ${fmt(ops.GET)} ops/s`,
          );
        }
    perRound.push(r);
  }
  const rows = [];
  for (const tool of ['redis-benchdb', 'redis-benchmark'])
    for (const pipeline of [1, 16])
      for (const test of ['SET', 'GET']) {
        const key = (link) => `${tool} ${test} P${pipeline} ${link}`;
        const ratios = perRound.map((r) => r[key('unix')] / r[key('tcp')]);
        rows.push({
          tool,
          cell: `${test} P${pipeline}`,
          tcpOps: median(perRound.map((r) => r[key('tcp')])),
          unixOps: median(perRound.map((r) => r[key('unix')])),
          ratio: median(ratios),
          min: Math.min(...ratios),
          max: Math.max(...ratios),
        });
      }
  const machine = {
    cpu: os.cpus()[0]?.model.trim(),
    nproc: os.cpus().length,
    redisServer: server.version,
    redisBenchmark: execFileSync('redis-benchmark', ['--version'], { encoding: 'utf8' }).trim(),
    node: process.version,
    pinned: toolCpus ? `redis-server on CPU ${os.cpus().length - 1}, each tool on CPU ${toolCpus}` : 'no',
  };
  if (args.json)
    console.log(
      JSON.stringify(
        { machine, rounds, requests: { P1: requestsFor(1), P16: requestsFor(16) }, rows, perRound },
        null,
        2,
      ),
    );
  else printTable(machine, rows);
  await stop(0);
} catch (err) {
  await stop(1, err.message);
}

async function redisBenchmark(link, pipeline) {
  const out = await run('redis-benchmark', [
    ...link,
    ...COMMON,
    '-n',
    String(requestsFor(pipeline)),
    '-P',
    String(pipeline),
    '--csv',
  ]);
  const rows = out.split('\n').filter((l) => l.startsWith('"') && !l.startsWith('"test"'));
  const ops = Object.fromEntries(
    rows.map((l) => JSON.parse(`[${l}]`)).map(([test, rps]) => [test, Number(rps)]),
  );
  if (!ops.SET || !ops.GET) throw new Error(`redis-benchmark: expected SET and GET rows, got:\n${out}`);
  return ops;
}

async function ours(link, pipeline) {
  const argv = [
    CLI,
    'run',
    ...link,
    ...COMMON,
    '-n',
    String(requestsFor(pipeline)),
    '-P',
    String(pipeline),
    '--json',
    '--no-store',
  ];
  const cells = JSON.parse(await run(process.execPath, argv)).cells;
  const bad = cells.find((c) => c.incomplete || c.error);
  if (bad) throw new Error(`redis-benchdb ${bad.label}: ${bad.error ?? 'incomplete'}`);
  return Object.fromEntries(cells.map((c) => [c.test, c.opsPerSec.median]));
}

function run(bin, argv) {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const [cmd, cmdArgs] = toolCpus ? ['taskset', ['-c', toolCpus, bin, ...argv]] : [bin, argv];
    child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', (e) => reject(new Error(`${bin} could not start: ${e.message}`)));
    child.once('close', (code, signal) => {
      child = null;
      if (code === 0) resolve(stdout);
      else
        reject(new Error(`${bin} ${argv.join(' ')} failed (${signal ?? `exit ${code}`}):\n${stderr.trim()}`));
    });
  });
}

// This script's own throwaway server: emptying it gives every run the same starting state.
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

function printTable(m, rows) {
  console.log(
    `Machine: ${m.cpu}, ${m.nproc} CPUs; redis-server ${m.redisServer}; ${m.redisBenchmark}; node ${m.node}`,
  );
  console.log(
    `Rounds: ${rounds}; requests per run: ${requestsFor(1)} at P1, ${requestsFor(16)} at P16; pinned: ${m.pinned}`,
  );
  console.log('ratio = unix socket / TCP loopback ops/s, median of per-round ratios\n');
  const head = ['tool', 'cell', 'TCP ops/s', 'unix ops/s', 'unix/TCP', 'min', 'max'];
  const body = rows.map((r) => [
    r.tool,
    r.cell,
    fmt(r.tcpOps),
    fmt(r.unixOps),
    ...[r.ratio, r.min, r.max].map((x) => x.toFixed(2)),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cols) =>
    `| ${cols.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log(line(head));
  console.log(line(widths.map((w, i) => (i < 2 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`))));
  for (const b of body) console.log(line(b));
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
