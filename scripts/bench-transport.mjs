// Unix socket against TCP loopback, measured by redis-benchdb and by redis-benchmark on one server.
//   pnpm bench:transport [--rounds 5] [--requests N] [--scale X] [--json] [--no-pin]
// The Redis docs ("Redis benchmark", factors impacting performance) say unix domain sockets can give
// about 50% more throughput than TCP/IP loopback on Linux, and that the gain shrinks with pipelining.
// Cells: SET and GET, 256-byte values, 100,000 keys, 50 connections, pipeline 1 and pipeline 16
// (batch, as redis-benchmark -P). Requests per run: 200,000 at P1 and 1,000,000 at P16 (or
// --requests N), times --scale. One throwaway redis-server listens on both a free loopback port and
// a unix socket in its temp dir; every round runs each tool over both links, alternating which link
// goes first, and the summary is the median of per-round unix/tcp ratios.

import { parseArgs } from 'node:util';
import {
  benchSession,
  describeMachine,
  flushAll,
  fmt,
  markdownTable,
  median,
  pinServer,
  positiveFlag,
  refuseProductionPort,
} from './lib/bench.mjs';
import { redisBenchdbPeer } from './lib/redis-benchdb.mjs';
import { redisBenchmarkPeer } from './lib/redis-benchmark.mjs';

const { startServer } = await import('@redis-benchdb/engine');

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
const rounds = Math.round(positiveFlag('bench-transport', args, 'rounds'));
const scale = positiveFlag('bench-transport', args, 'scale');
const fixed = args.requests === undefined ? null : positiveFlag('bench-transport', args, 'requests');
const requestsFor = (p) => Math.max(1000, Math.round((fixed ?? (p === 1 ? 200_000 : 1_000_000)) * scale));

const session = benchSession('bench-transport');
const { log } = session;
const peers = {
  'redis-benchmark': redisBenchmarkPeer(session.run),
  'redis-benchdb': redisBenchdbPeer(session.run),
};

await session.main(async () => {
  const server = session.own(await startServer({ unixSocketInDir: true }));
  refuseProductionPort([server.port]);
  // The server on the last CPU, the tools on the others: the scheduler cannot put both on one core.
  let pinned = 'no';
  if (args.pin) {
    const pin = await pinServer(server.pid);
    if (pin.server) {
      session.pinTools(pin.tools);
      pinned = `redis-server on CPU ${pin.server}, each tool on CPU ${pin.tools}`;
    } else log(`not pinned: ${pin.why}`);
  }
  const links = { tcp: { host: '127.0.0.1', port: server.port }, unix: { socket: server.unixSocket } };
  log(`redis-server ${server.version}: 127.0.0.1:${server.port} and ${server.unixSocket}`);

  const perRound = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? ['tcp', 'unix'] : ['unix', 'tcp'];
    const r = { round };
    for (const pipeline of [1, 16])
      for (const tool of ['redis-benchmark', 'redis-benchdb'])
        for (const link of order) {
          // This script's own throwaway server: emptying it gives every run the same starting state.
          await flushAll(server.port);
          const rows = await peers[tool]({
            target: links[link],
            tests: ['set', 'get'],
            connections: 50,
            valueSize: 256,
            keyspaceSize: 100_000,
            requests: requestsFor(pipeline),
            pipelineDepth: pipeline,
          });
          const ops = Object.fromEntries(rows.map((row) => [row.test, row.opsPerSec]));
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
  const machine = { ...describeMachine(server.version), pinned };
  if (args.json)
    console.log(
      JSON.stringify(
        { machine, rounds, requests: { P1: requestsFor(1), P16: requestsFor(16) }, rows, perRound },
        null,
        2,
      ),
    );
  else printTable(machine, rows);
});

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
  console.log(markdownTable(head, body, 2));
}
