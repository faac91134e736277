// The client CPU that redis-benchdb spends per request, for one or more builds of its CLI, side by side.
//   pnpm bench:client-cpu [--cli PATH ...] [--rounds 5] [--small N] [--large N] [--json] [--no-pin]
// How: user+sys CPU (from /usr/bin/time) of a large run minus that of a small one, divided by the
// extra requests the runs made (the drift check's repeat of one cell included). The difference takes out what a run costs whatever its length: Node's start-up,
// the environment probe, the handshake and cleanup. Cells: SET and GET together (one run: GET reads
// what SET wrote), 256-byte values, 100,000 keys, 50 connections, at pipeline 1 and 16 (batch).
// Every round runs each build on each cell, in an order that turns around each round; the summary is
// the median over rounds, and, with several builds, each build's figure over the first one's.
// Without --cli, the build in this checkout (packages/cli/dist/bin.js) is measured.

import { spawn } from 'node:child_process';
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
import { CLI, readBenchdbCells, redisBenchdbArgs } from './lib/redis-benchdb.mjs';

const { startServer } = await import(new URL('../packages/engine/dist/index.js', import.meta.url));

const { values: args } = parseArgs({
  options: {
    cli: { type: 'string', multiple: true },
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

const session = benchSession('bench-client-cpu');
const { log } = session;
let toolCpus = null;

/**
 * The requests a run made: every cell's, and the drift check's repeat of one cell (a run of several
 * cells ends by measuring one again, as many requests; builds from before the drift check do not).
 */
function requestsMade(doc) {
  const completed = doc.cells.reduce((n, c) => n + c.completed, 0);
  const repeated = doc.driftCheck
    ? (doc.cells.find((c) => c.label === doc.driftCheck.cell)?.completed ?? 0)
    : 0;
  return completed + repeated;
}

/** One run under /usr/bin/time: the CLI's user+sys CPU seconds and the requests it made (cells checked complete). */
function timedRun(cli, w) {
  const argv = ['-f', 'cpu %U %S', process.execPath, cli, ...redisBenchdbArgs(w)];
  const [cmd, cmdArgs] = toolCpus
    ? ['taskset', ['-c', toolCpus, '/usr/bin/time', ...argv]]
    : ['/usr/bin/time', argv];
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const proc = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    proc.once('error', (e) =>
      reject(new Error(`/usr/bin/time could not start (apt-get install time): ${e.message}`)),
    );
    proc.once('close', (code) => {
      const m = /^cpu ([\d.]+) ([\d.]+)$/m.exec(stderr);
      if (code !== 0 || !m) return reject(new Error(`${cli} failed (exit ${code}):\n${stderr.trim()}`));
      readBenchdbCells(stdout, w.tests, `P${w.pipelineDepth}`);
      resolve({ cpuSec: Number(m[1]) + Number(m[2]), requests: requestsMade(JSON.parse(stdout)) });
    });
  });
}

await session.main(async () => {
  const server = session.own(await startServer());
  refuseProductionPort([server.port]);
  if (args.pin) {
    const pin = await pinServer(server.pid);
    if (pin.server) toolCpus = pin.tools;
    log(
      pin.server
        ? `pinned: redis-server on CPU ${pin.server}, the client on CPU ${pin.tools}`
        : `not pinned (${pin.why})`,
    );
  }
  const machine = describeMachine(server.version);
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

  /** µs per request, per build and pipeline, one figure a round. */
  const figures = clis.map(() => Object.fromEntries(PIPELINES.map((p) => [p, []])));
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? clis.map((_, i) => i) : clis.map((_, i) => i).reverse();
    for (const p of PIPELINES) {
      for (const i of order) {
        await flushAll(server.port);
        const a = await timedRun(clis[i], workload(p, small));
        await flushAll(server.port);
        const b = await timedRun(clis[i], workload(p, large));
        const us = ((b.cpuSec - a.cpuSec) * 1e6) / (b.requests - a.requests);
        figures[i][p].push(us);
        log(
          `round ${round}/${rounds} P${p} build ${i + 1}: ${us.toFixed(3)} µs/request ` +
            `(${a.cpuSec.toFixed(2)} s for ${a.requests} requests, ${b.cpuSec.toFixed(2)} s for ${b.requests})`,
        );
      }
    }
  }

  const rows = clis.map((cli, i) => ({
    cli,
    perRequestUs: Object.fromEntries(PIPELINES.map((p) => [`P${p}`, median(figures[i][p])])),
    rounds: figures[i],
  }));
  if (args.json) {
    console.log(JSON.stringify({ machine, small, large, rows }, null, 2));
    return;
  }
  console.log(
    `Machine: ${machine.cpu}, ${machine.nproc} CPUs; redis-server ${server.version}; node ${process.version}`,
  );
  console.log(
    `Client CPU (user+sys) per request: (run of ${large} - run of ${small} requests a test) / the extra requests made, median of ${rounds} rounds\n`,
  );
  const head = [
    'build',
    ...PIPELINES.map((p) => `P${p} µs/request`),
    ...(clis.length > 1 ? PIPELINES.map((p) => `P${p} / build 1`) : []),
  ];
  const body = rows.map((r, i) => [
    `${i + 1}: ${r.cli}`,
    ...PIPELINES.map((p) => r.perRequestUs[`P${p}`].toFixed(3)),
    ...(clis.length > 1
      ? PIPELINES.map((p) => (r.perRequestUs[`P${p}`] / rows[0].perRequestUs[`P${p}`]).toFixed(3))
      : []),
  ]);
  console.log(markdownTable(head, body));
});
