// The client CPU that a load generator spends per request: redis-benchdb (one or more builds of its
// CLI) beside redis-benchmark and memtier_benchmark, in the same run, and the server's own CPU per
// request over the same runs, so that the client/server ratio says how the client compares with
// what it loads whatever the machine's speed (a ratio below 1 at pipeline 1 means one client thread
// can saturate one server thread on an equal core).
//   pnpm bench:client-cpu [--cli PATH ...] [--memtier PATH] [--no-redis-benchmark] [--rounds 5]
//                         [--small N] [--large N] [--json] [--no-pin]
// How: user+sys CPU (from /usr/bin/time) of a large run minus that of a small one, divided by the
// extra requests the runs made (redis-benchdb's drift-check repeat of one cell included). The
// difference takes out what a run costs whatever its length: start-up, the environment probe, the
// handshake and cleanup. The server's CPU is its main thread's used_cpu_user+sys from INFO, read
// before and after each run, taken the same way. Cells: SET and GET together (GET reads what SET
// wrote), 256-byte values, 100,000 keys, 50 connections, at pipeline 1 and 16. At 16, redis-benchdb
// and redis-benchmark send batches; memtier keeps a sliding window, so redis-benchdb's window mode
// is measured beside it. Every round runs each tool on each cell, in an order that turns around
// each round; the summary is the median over rounds.
// Without --cli, the build in this checkout (packages/cli/dist/bin.js) is measured.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  benchSession,
  describeMachine,
  flushAll,
  markdownTable,
  median,
  pinServer,
  positiveFlag,
  refuseProductionPort,
} from './lib/bench.mjs';
import { memtierArgs } from './lib/memtier.mjs';
import { CLI, readBenchdbCells, redisBenchdbArgs } from './lib/redis-benchdb.mjs';
import { parseRedisBenchmarkCsv, redisBenchmarkArgs } from './lib/redis-benchmark.mjs';

const { startServer } = await import(new URL('../packages/engine/dist/index.js', import.meta.url));

const { values: args } = parseArgs({
  options: {
    cli: { type: 'string', multiple: true },
    memtier: { type: 'string' },
    'redis-benchmark': { type: 'boolean', default: true },
    rounds: { type: 'string', default: '5' },
    small: { type: 'string', default: '100000' },
    large: { type: 'string', default: '1000000' },
    json: { type: 'boolean', default: false },
    pin: { type: 'boolean', default: true },
  },
  allowNegative: true,
});
const rounds = positiveFlag('bench-client-cpu', args, 'rounds', { integer: true });
const small = positiveFlag('bench-client-cpu', args, 'small', { integer: true });
const large = positiveFlag('bench-client-cpu', args, 'large', { integer: true });
if (large <= small) {
  console.error(
    `bench-client-cpu: --large (${large}) must exceed --small (${small}): the figure is their difference`,
  );
  process.exit(2);
}
const clis = args.cli?.length ? args.cli : [CLI];
const PIPELINES = [1, 16];
const C_PEERS = ['redis-benchmark', 'memtier'];

const session = benchSession('bench-client-cpu');
const { log } = session;
let toolCpus = null;

/** A command under /usr/bin/time (and taskset once pinned): its stdout and its user+sys CPU seconds. */
function timed(argv) {
  const cmd = ['/usr/bin/time', '-f', 'cpu %U %S', ...argv];
  const [bin, binArgs] = toolCpus ? ['taskset', ['-c', toolCpus, ...cmd]] : [cmd[0], cmd.slice(1)];
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const proc = spawn(bin, binArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    proc.once('error', (e) =>
      reject(new Error(`/usr/bin/time could not start (apt-get install time): ${e.message}`)),
    );
    proc.once('close', (code) => {
      const m = /^cpu ([\d.]+) ([\d.]+)$/m.exec(stderr);
      if (code !== 0 || !m)
        return reject(new Error(`${argv.join(' ')} failed (exit ${code}):\n${stderr.trim()}`));
      resolve({ stdout, cpuSec: Number(m[1]) + Number(m[2]) });
    });
  });
}

/** The server's main-thread CPU seconds (user+sys) from INFO cpu; the whole process's before Redis 6.2. */
function serverCpu(port) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => sock.write('*2\r\n$4\r\nINFO\r\n$3\r\ncpu\r\n'));
    let text = '';
    sock.on('data', (d) => {
      text += d;
      const m = /^\$(\d+)\r\n/.exec(text);
      if (!m || Buffer.byteLength(text) < m[0].length + Number(m[1])) return;
      sock.destroy();
      const n = (k) => Number(new RegExp(`^${k}:([\\d.]+)`, 'm').exec(text)?.[1]);
      const main = n('used_cpu_user_main_thread') + n('used_cpu_sys_main_thread');
      resolve(Number.isFinite(main) ? main : n('used_cpu_user') + n('used_cpu_sys'));
    });
    sock.once('error', reject);
  });
}

/**
 * The requests a redis-benchdb run made: every cell's, and the drift check's repeat of one cell (a
 * run of several cells ends by measuring one again; builds from before the drift check do not).
 */
function benchdbRequests(stdout, w) {
  readBenchdbCells(stdout, w.tests, `P${w.pipelineDepth}`);
  const doc = JSON.parse(stdout);
  const completed = doc.cells.reduce((n, c) => n + c.completed, 0);
  const repeated = doc.driftCheck
    ? (doc.cells.find((c) => c.label === doc.driftCheck.cell)?.completed ?? 0)
    : 0;
  return completed + repeated;
}

/**
 * The tools, each a name, the pipelines it runs, and how one run goes: its CPU seconds and the
 * requests it made. memtier runs one test per invocation (SET, then GET reads what it wrote).
 */
function tools() {
  const list = clis.map((cli, i) => ({
    name: clis.length > 1 ? `redis-benchdb ${i + 1}` : 'redis-benchdb',
    pipelines: PIPELINES,
    async run(w) {
      const r = await timed([process.execPath, cli, ...redisBenchdbArgs(w)]);
      return { cpuSec: r.cpuSec, requests: benchdbRequests(r.stdout, w) };
    },
  }));
  list.push({
    name: `${list[0].name} window`,
    pipelines: [16],
    async run(w) {
      return list[0].run({ ...w, pipelineMode: 'window' });
    },
  });
  if (args['redis-benchmark'])
    list.push({
      name: 'redis-benchmark',
      pipelines: PIPELINES,
      async run(w) {
        const r = await timed(['redis-benchmark', ...redisBenchmarkArgs(w)]);
        if (parseRedisBenchmarkCsv(r.stdout).length !== w.tests.length)
          throw new Error(`redis-benchmark: want ${w.tests.length} rows:\n${r.stdout}`);
        return { cpuSec: r.cpuSec, requests: w.requests * w.tests.length };
      },
    });
  if (args.memtier)
    list.push({
      name: 'memtier',
      pipelines: PIPELINES,
      async run(w) {
        const dir = mkdtempSync(join(tmpdir(), 'rbdb-memtier-'));
        try {
          let cpuSec = 0;
          const win = { ...w, pipelineMode: 'window' };
          for (const test of w.tests)
            cpuSec += (await timed([args.memtier, ...memtierArgs(win, test, join(dir, `${test}.json`))]))
              .cpuSec;
          // memtier's -n is per connection, rounded up (memtierArgs).
          return { cpuSec, requests: w.tests.length * Math.ceil(w.requests / w.connections) * w.connections };
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    });
  return list;
}

/** One run of a tool from an empty server: its CPU, the server's main-thread CPU, and its requests. */
async function measured(port, tool, w) {
  await flushAll(port);
  const before = await serverCpu(port);
  const r = await tool.run(w);
  return { ...r, serverSec: (await serverCpu(port)) - before };
}

await session.main(async () => {
  const server = session.own(await startServer());
  refuseProductionPort([server.port]);
  const machine = describeMachine(server.version);
  if (args.pin) {
    const pin = await pinServer(server.pid);
    if (pin.server) toolCpus = pin.tools;
    log(
      pin.server
        ? `pinned: redis-server on CPU ${pin.server}, each tool on CPU ${pin.tools}`
        : `not pinned (${pin.why})`,
    );
  }
  log(`redis-server ${server.version} on 127.0.0.1:${server.port}; ${machine.cpu}, ${machine.nproc} CPUs`);
  const workload = (pipeline, requests) => ({
    target: { host: '127.0.0.1', port: server.port },
    tests: ['set', 'get'],
    connections: 50,
    valueSize: 256,
    keyspaceSize: 100_000,
    requests,
    pipelineDepth: pipeline,
  });

  const list = tools();
  /** Per tool and pipeline, one { clientUs, serverUs } a round. */
  const figures = list.map(() => Object.fromEntries(PIPELINES.map((p) => [p, []])));
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? list.map((_, i) => i) : list.map((_, i) => i).reverse();
    for (const p of PIPELINES) {
      for (const i of order) {
        const tool = list[i];
        if (!tool.pipelines.includes(p)) continue;
        const a = await measured(server.port, tool, workload(p, small));
        const b = await measured(server.port, tool, workload(p, large));
        const extra = b.requests - a.requests;
        const clientUs = ((b.cpuSec - a.cpuSec) * 1e6) / extra;
        const serverUs = ((b.serverSec - a.serverSec) * 1e6) / extra;
        figures[i][p].push({ clientUs, serverUs });
        log(
          `round ${round}/${rounds} P${p} ${tool.name}: client ${clientUs.toFixed(3)} µs/request, server ${serverUs.toFixed(3)} ` +
            `(${a.cpuSec.toFixed(2)} s for ${a.requests} requests, ${b.cpuSec.toFixed(2)} s for ${b.requests})`,
        );
      }
    }
  }

  const cells = PIPELINES.map((p) => {
    const rows = list
      .map((tool, i) => {
        const f = figures[i][p];
        if (f.length === 0) return null;
        const client = f.map((x) => x.clientUs);
        const ratio = f.map((x) => x.clientUs / x.serverUs);
        return {
          tool: tool.name,
          clientUs: median(client),
          clientMinUs: Math.min(...client),
          clientMaxUs: Math.max(...client),
          serverUs: median(f.map((x) => x.serverUs)),
          clientOverServer: median(ratio),
          rounds: f,
        };
      })
      .filter((r) => r !== null);
    const peers = rows.filter((r) => C_PEERS.includes(r.tool));
    const best = peers.length ? Math.min(...peers.map((r) => r.clientUs)) : null;
    for (const r of rows) r.overBestCPeer = best === null ? null : r.clientUs / best;
    return { pipeline: p, rows };
  });
  if (args.json) {
    console.log(JSON.stringify({ machine, small, large, rounds, cells }, null, 2));
    return;
  }
  console.log(
    `Machine: ${machine.cpu}, ${machine.nproc} CPUs; redis-server ${server.version}; ${machine.redisBenchmark}; node ${process.version}`,
  );
  console.log(
    `CPU (user+sys) per request: (run of ${large} - run of ${small} requests a test) / the extra requests made, median of ${rounds} rounds.` +
      ' Server: its main thread over the same runs.\n',
  );
  const head = [
    'cell',
    'tool',
    'client µs/request',
    'min–max',
    'server µs/request',
    'client / server',
    'client / best C peer',
  ];
  const body = cells.flatMap((c) =>
    c.rows.map((r) => [
      `P${c.pipeline}`,
      r.tool,
      r.clientUs.toFixed(3),
      `${r.clientMinUs.toFixed(3)}–${r.clientMaxUs.toFixed(3)}`,
      r.serverUs.toFixed(3),
      r.clientOverServer.toFixed(2),
      r.overBestCPeer === null ? '-' : r.overBestCPeer.toFixed(2),
    ]),
  );
  console.log(markdownTable(head, body, 2));
});
