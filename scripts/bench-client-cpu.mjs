// The client CPU that a load generator spends per request: redis-benchdb (one or more builds of its
// CLI) beside redis-benchmark and memtier_benchmark, in the same run, and the server's own CPU per
// request over the same runs, so that the client/server ratio says how the client compares with
// what it loads whatever the machine's speed (a ratio below 1 at pipeline 1 means one client thread
// can saturate one server thread on an equal core).
//   pnpm bench:client-cpu [--cli PATH ...] [--memtier PATH] [--no-redis-benchmark] [--rounds 5]
//                         [--small N] [--large N] [--json] [--no-pin] [--syscalls]
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
// --syscalls: each run goes under `strace -f -c` instead, and the figures are system calls per
// request (the same large-minus-small difference), by kind: writes, reads, epoll, all. strace slows
// every tool several times over, so this mode reports no CPU.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
import { memtierArgs, memtierRequests } from './lib/memtier.mjs';
import { CLI, readBenchdbCells, redisBenchdbArgs } from './lib/redis-benchdb.mjs';
import { parseRedisBenchmarkCsv, redisBenchmarkArgs } from './lib/redis-benchmark.mjs';

const { startServer } = await import('@redis-benchdb/engine');

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
    syscalls: { type: 'boolean', default: false },
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

/** System calls by kind, as --syscalls reports them; a kind is any of its names. */
const SYSCALL_KINDS = {
  writes: ['write', 'writev', 'sendto', 'sendmsg'],
  reads: ['read', 'readv', 'recvfrom', 'recvmsg'],
  epoll: ['epoll_wait', 'epoll_pwait', 'epoll_pwait2', 'epoll_ctl'],
};

/** `strace -c`'s summary table as counts by name. */
function straceCounts(text) {
  const calls = {};
  for (const m of text.matchAll(/^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?([a-z_0-9]+)$/gm))
    if (m[2] !== 'total') calls[m[2]] = Number(m[1]);
  return calls;
}

/**
 * A command under /usr/bin/time (and taskset once pinned): its stdout and its user+sys CPU seconds.
 * With --syscalls, under `strace -f -c` instead: its stdout and its system calls by name.
 */
function timed(argv) {
  const traceOut = args.syscalls ? join(mkdtempSync(join(tmpdir(), 'rbdb-strace-')), 'calls') : null;
  const cmd = traceOut
    ? ['strace', '-f', '-c', '-o', traceOut, ...argv]
    : ['/usr/bin/time', '-f', 'cpu %U %S', ...argv];
  const [bin, binArgs] = toolCpus ? ['taskset', ['-c', toolCpus, ...cmd]] : [cmd[0], cmd.slice(1)];
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const proc = spawn(bin, binArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    proc.once('error', (e) =>
      reject(
        new Error(
          `${cmd[0]} could not start (apt-get install ${cmd[0] === 'strace' ? 'strace' : 'time'}): ${e.message}`,
        ),
      ),
    );
    proc.once('close', (code) => {
      if (traceOut) {
        const calls = code === 0 ? straceCounts(readFileSync(traceOut, 'utf8')) : {};
        rmSync(dirname(traceOut), { recursive: true, force: true });
        if (code !== 0)
          return reject(new Error(`${argv.join(' ')} failed (exit ${code}):\n${stderr.trim()}`));
        return resolve({ stdout, cpuSec: 0, calls });
      }
      const m = /^cpu ([\d.]+) ([\d.]+)$/m.exec(stderr);
      if (code !== 0 || !m)
        return reject(new Error(`${argv.join(' ')} failed (exit ${code}):\n${stderr.trim()}`));
      resolve({ stdout, cpuSec: Number(m[1]) + Number(m[2]), calls: {} });
    });
  });
}

/** Counts by name, summed. */
const addCalls = (a, b) => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
};

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
      return { cpuSec: r.cpuSec, calls: r.calls, requests: benchdbRequests(r.stdout, w) };
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
        return { cpuSec: r.cpuSec, calls: r.calls, requests: w.requests * w.tests.length };
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
          let calls = {};
          const win = { ...w, pipelineMode: 'window' };
          for (const test of w.tests) {
            const r = await timed([args.memtier, ...memtierArgs(win, test, join(dir, `${test}.json`))]);
            cpuSec += r.cpuSec;
            calls = addCalls(calls, r.calls);
          }
          return { cpuSec, calls, requests: w.tests.length * memtierRequests(w) };
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    });
  return list;
}

/** System calls per request by kind (and all of them), from two runs' counts and their extra requests. */
function syscallsPerRequest(a, b, extra) {
  const delta = (names) => names.reduce((n, k) => n + (b[k] ?? 0) - (a[k] ?? 0), 0) / extra;
  const out = Object.fromEntries(Object.entries(SYSCALL_KINDS).map(([kind, names]) => [kind, delta(names)]));
  out.all = delta([...new Set([...Object.keys(a), ...Object.keys(b)])]);
  return out;
}

/** --syscalls: the medians over rounds, a row per tool and pipeline (JSON with --json). */
function printSyscalls(list, figures, machine) {
  const kinds = [...Object.keys(SYSCALL_KINDS), 'all'];
  const cells = PIPELINES.flatMap((p) =>
    list.flatMap((tool, i) =>
      figures[i][p].length === 0
        ? []
        : [
            {
              pipeline: p,
              tool: tool.name,
              ...Object.fromEntries(kinds.map((k) => [k, median(figures[i][p].map((f) => f[k]))])),
            },
          ],
    ),
  );
  if (args.json)
    return console.log(JSON.stringify({ machine, small, large, rounds, syscalls: cells }, null, 2));
  console.log(
    `Machine: ${machine.cpu}, ${machine.nproc} CPUs; ${machine.redisBenchmark}; node ${process.version}`,
  );
  console.log(
    `System calls per request under strace -f -c: (run of ${large} - run of ${small} requests a test) / the extra requests made, median of ${rounds} rounds.\n` +
      `writes: ${SYSCALL_KINDS.writes.join(', ')}; reads: ${SYSCALL_KINDS.reads.join(', ')}; epoll: ${SYSCALL_KINDS.epoll.join(', ')}\n`,
  );
  const head = ['cell', 'tool', ...kinds.map((k) => `${k} / request`)];
  console.log(
    markdownTable(
      head,
      cells.map((c) => [`P${c.pipeline}`, c.tool, ...kinds.map((k) => c[k].toFixed(3))]),
      2,
    ),
  );
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
        if (args.syscalls) {
          const perRequest = syscallsPerRequest(a.calls, b.calls, extra);
          figures[i][p].push(perRequest);
          log(
            `round ${round}/${rounds} P${p} ${tool.name}: ${JSON.stringify(perRequest)} system calls/request`,
          );
          continue;
        }
        figures[i][p].push({ clientUs, serverUs });
        log(
          `round ${round}/${rounds} P${p} ${tool.name}: client ${clientUs.toFixed(3)} µs/request, server ${serverUs.toFixed(3)} ` +
            `(${a.cpuSec.toFixed(2)} s for ${a.requests} requests, ${b.cpuSec.toFixed(2)} s for ${b.requests})`,
        );
      }
    }
  }

  if (args.syscalls) return printSyscalls(list, figures, machine);
  const cells = cpuCells(list, figures);
  if (args.json) {
    console.log(JSON.stringify({ machine, small, large, rounds, cells }, null, 2));
    return;
  }
  printCpu(cells, machine, server.version);
});

/** The medians over rounds, per pipeline a row per tool, each against the best C peer's client CPU. */
function cpuCells(list, figures) {
  return PIPELINES.map((p) => {
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
    // A peer whose extra requests cost no measurable CPU (at or below the clock's tick, as at a tiny
    // scale) gives no ratio: null, printed "-", never an infinity.
    for (const r of rows) r.overBestCPeer = best !== null && best > 0 ? r.clientUs / best : null;
    return { pipeline: p, rows };
  });
}

/** The CPU table, with the machine and the method above it. */
function printCpu(cells, machine, serverVersion) {
  console.log(
    `Machine: ${machine.cpu}, ${machine.nproc} CPUs; redis-server ${serverVersion}; ${machine.redisBenchmark}; node ${process.version}`,
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
}
