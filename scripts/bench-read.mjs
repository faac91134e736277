// The read API's response times at scale: p50 / p99 / max per kind of request, from send to answer.
//   pnpm bench:read [--db PATH | --count N] [--requests R] [--clients C] [--json]
// --db reads an existing database (kept, opened read-only by this script); otherwise N synthetic
// results (default 10,000) are generated into a temp dir by scripts/gen-synthetic-db.mjs (about 13 min
// on 2 vCPUs) and removed after. The service is packages/server/dist/main.js, its own process on a free
// loopback port, rate limits out of the way. C keep-alive clients (default 8) send R requests (default
// 4,000) in a closed loop, cycling through a fixed mix: list pages unfiltered, with cell filters, with
// machine and server filters, with a filter nothing matches (the bounded-walk worst case), the second
// page of a list, one result by id, the largest cohorts, and the OpenAPI document. Every answer must be
// 200. Then, in this process, the rank a submit answers with (resultRanks, overall and same CPU) is
// timed for 200 results.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openDatabase, resultRanks } from '@redis-benchdb/db';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    count: { type: 'string', default: '10000' },
    requests: { type: 'string', default: '4000' },
    clients: { type: 'string', default: '8' },
    json: { type: 'boolean', default: false },
  },
});
function positive(name) {
  const v = Number(args[name]);
  if (Number.isInteger(v) && v > 0) return v;
  console.error(`bench-read: --${name} must be a positive integer, got ${args[name]}`);
  process.exit(2);
}
const requests = positive('requests');
const clients = positive('clients');
const log = (msg) => process.stderr.write(`[bench-read] ${msg}\n`);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

function run(argv) {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? done() : reject(new Error(`${argv.join(' ')} exited ${code}`))));
  });
}

let tmp = null;
let dbPath;
if (args.db) dbPath = resolve(args.db);
else {
  tmp = mkdtempSync(join(os.tmpdir(), 'rbdb-bench-read-'));
  dbPath = join(tmp, 'bench.sqlite');
  const count = positive('count');
  log(`generating ${count} synthetic results into ${dbPath}`);
  await run(['scripts/gen-synthetic-db.mjs', '--count', String(count), '--out', dbPath]);
}

/** The real service as its own process; resolves with its URL once it listens. */
function startService() {
  const child = spawn(
    process.execPath,
    [
      'packages/server/dist/main.js',
      '--db',
      dbPath,
      '--port',
      '0',
      '--per-ip-per-minute',
      '100000000',
      '--per-key-per-minute',
      '100000000',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((done, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m) done({ url: m[1], child });
    });
    child.on('exit', (code) => reject(new Error(`the service exited (${code}) before listening`)));
  });
}

const db = openDatabase(dbPath, { readonly: true });
// What the mix asks for, picked from the data before the clock starts.
const sample = db.sqlite
  .prepare(
    `SELECT id, cpu_model AS cpu, server_product AS product, server_version AS version FROM results
      WHERE kind = 'signed' ORDER BY id LIMIT 50`,
  )
  .all();
const cohorts = db.sqlite
  .prepare(
    `SELECT workload_fingerprint AS fp, count(*) AS n FROM cells INDEXED BY cells_cohort
      WHERE workload_fingerprint IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 10`,
  )
  .all();
const total = db.sqlite.prepare('SELECT count(*) AS n FROM results').get().n;

const service = await startService();
const stop = () => service.child.kill('SIGTERM');
process.on('SIGINT', () => {
  stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  process.exit(130);
});

const q = (o) => `/api/v1/results?${new URLSearchParams(o)}`;
const first = await (await fetch(`${service.url}${q({ limit: '50' })}`)).json();
const MIX = [
  ['list', () => q({ limit: '50' })],
  ['list page 2', () => first.next],
  ['list cell filter', () => q({ test: 'GET', pipelineDepth: '16', connections: '50', limit: '50' })],
  ['list machine filter', (i) => q({ cpuModel: sample[i % sample.length].cpu, limit: '50' })],
  [
    'list server filter',
    (i) =>
      q({
        serverProduct: sample[i % sample.length].product,
        serverVersion: sample[i % sample.length].version,
      }),
  ],
  ['list no match', () => q({ cpuModel: 'no such CPU', limit: '200' })],
  ['result by id', (i) => `/api/v1/results/${sample[i % sample.length].id}`],
  ['cohort', (i) => `/api/v1/cohorts/${cohorts[i % cohorts.length].fp}`],
  ['openapi', () => '/api/v1/openapi.json'],
];

const times = new Map(MIX.map(([name]) => [name, []]));
let next = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: clients }, async () => {
    for (let i = next++; i < requests; i = next++) {
      const [name, path] = MIX[i % MIX.length];
      const start = performance.now();
      const res = await fetch(`${service.url}${path(Math.floor(i / MIX.length))}`);
      await res.arrayBuffer();
      const ms = performance.now() - start;
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      times.get(name).push(ms);
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
stop();

const quantile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
function summary(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: quantile(s, 0.5), p99: quantile(s, 0.99), max: s.at(-1) ?? 0 };
}
const all = summary([...times.values()].flat());
const byKind = Object.fromEntries([...times].map(([k, v]) => [k, summary(v)]));

// The rank a 201 carries: resultRanks of the new result, overall and among its CPU model.
const rankMs = [];
for (const { id } of db.sqlite
  .prepare("SELECT id FROM results WHERE kind = 'signed' ORDER BY id LIMIT 200")
  .all()) {
  const start = performance.now();
  resultRanks(db, id, { sameCpu: true });
  rankMs.push(performance.now() - start);
}
const rank = summary(rankMs);
db.close();
if (tmp) rmSync(tmp, { recursive: true, force: true });

const report = {
  machine: {
    cpu: os.cpus()[0]?.model,
    nproc: os.availableParallelism(),
    node: process.version,
    loadavg: os.loadavg(),
  },
  results: total,
  requests,
  clients,
  seconds,
  all,
  byKind,
  rankAfterSubmit: rank,
  largestCohort: cohorts[0]?.n ?? 0,
};
if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const f = (x) => x.toFixed(2);
  const line = (name, s) =>
    `${name.padEnd(20)} n ${String(s.n).padStart(5)}  p50 ${f(s.p50).padStart(7)} ms  p99 ${f(s.p99).padStart(7)} ms  max ${f(s.max).padStart(7)} ms`;
  console.log(
    `machine: ${report.machine.cpu}, nproc ${report.machine.nproc}, node ${report.machine.node}, load ${report.machine.loadavg.map((l) => l.toFixed(1)).join(' ')}`,
  );
  console.log(`${total} results; ${requests} requests from ${clients} keep-alive clients in ${f(seconds)} s`);
  console.log(line('all', all));
  for (const [k, s] of Object.entries(byKind)) console.log(line(k, s));
  console.log(line('rank (in-process)', rank));
  console.log(`largest cohort: ${report.largestCohort} cells`);
}
