// A throwaway database of N synthetic results, for benchmarking the site at scale (bench:site).
//   node scripts/gen-synthetic-db.mjs --count N --out PATH [--seed S] [--workers W] [--force] [--json]
// Each result is a valid, signed result.v1 shaped like a standard-v1 run (quick or full profile),
// stored through the real ingest() of packages/db, every check included. They are plainly fake:
// every CPU model starts with "SYNTHETIC ", the runner version is 0.1.0-synthetic, and a path under
// data/ (real results only) is refused. Needs packages/result and packages/db built.

import { existsSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';

const DATA_DIR = fileURLToPath(new URL('../data/', import.meta.url));
const KEYS = 5;

const USAGE = `usage: node scripts/gen-synthetic-db.mjs --count N --out PATH [options]

Writes a throwaway SQLite database of N synthetic, signed results for benchmarking the site at
scale (pnpm bench:site). Every result is marked fake (CPU model "SYNTHETIC ...", runner
0.1.0-synthetic); a path under data/, which holds real results only, is refused.
Needs the packages built first: pnpm -s build.

  --count N      how many results (required)
  --out PATH     the new database file (required; an existing file needs --force)
  --seed S       the random seed (default 1): the same seed gives the same results
  --workers W    worker threads that sign and check (default: CPUs, at most 4)
  --force        replace PATH if it exists
  --json         print the summary as JSON
  -h, --help     print this

Example (10,000 results took about 43 minutes on a busy 2-core VM):
  node scripts/gen-synthetic-db.mjs --count 1000 --out /tmp/synthetic-1k.sqlite`;

function fail(message) {
  console.error(`gen-synthetic-db: ${message}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      count: { type: 'string' },
      out: { type: 'string' },
      seed: { type: 'string', default: '1' },
      workers: { type: 'string', default: String(Math.max(1, Math.min(os.availableParallelism(), 4))) },
      force: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (e) {
  fail(`${e.message}; see --help`);
}
const args = parsed.values;
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
// Loaded after the arguments, so that --help works before the packages are built.
const { assignSigner, count: countResults, openDatabase } = await import('@redis-benchdb/db');
const { generateSigningKey, keyFingerprint, publicKeyFromPrivate, rawPublicKey } = await import(
  '@redis-benchdb/result'
);
function integer(name, min) {
  const v = Number(args[name]);
  if (args[name] === undefined || !Number.isInteger(v) || v < min)
    fail(`--${name} must be an integer >= ${min}, got ${args[name] ?? 'nothing'}`);
  return v;
}

/** Where a path really is, following symlinks as far as the path exists. */
function realLocation(p) {
  const abs = resolve(p);
  if (existsSync(abs)) return realpathSync(abs);
  const parent = dirname(abs);
  return parent === abs ? abs : resolve(realLocation(parent), relative(parent, abs));
}

function insideData(p) {
  const rel = relative(realLocation(DATA_DIR), realLocation(p));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

const count = integer('count', 1);
const seed = integer('seed', 0);
const workers = Math.min(integer('workers', 1), count);
if (!args.out) fail('--out PATH is required (a new SQLite file outside data/)');
const out = resolve(args.out);
if (insideData(out))
  fail(`refusing --out ${args.out}: data/ holds real results only, and synthetic ones must never land there`);
if (existsSync(out)) {
  if (!args.force) fail(`${args.out} exists: pass --force to replace it, or choose a new path`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(out + suffix, { force: true });
}

const log = (msg) => args.json || process.stderr.write(`[gen-synthetic-db] ${msg}\n`);
const t0 = performance.now();
// Migrate once here, so the workers do not race to create the schema.
openDatabase(out).close();
const keys = Array.from({ length: KEYS }, () => generateSigningKey().privateKeyPem);
// Each key named a signer of its own, as an operator names submitters it knows: the corroboration
// rule (packages/result corroboration.ts) then takes them as anchors, so the synthetic database keeps
// standing for a populated one whose results count, and five keys stay five signers.
{
  const named = openDatabase(out);
  for (const [i, pem] of keys.entries())
    assignSigner(named, `synthetic signer ${i + 1}`, [
      keyFingerprint(rawPublicKey(publicKeyFromPrivate(pem))),
    ]);
  named.close();
}

let done = 0;
let next = 1000;
const outcomes = await Promise.all(
  Array.from({ length: workers }, (_, index) => {
    const w = new Worker(new URL('./synthetic/worker.mjs', import.meta.url), {
      workerData: { dbPath: out, seed, count, index, workers, keys },
    });
    return new Promise((resolveDone, reject) => {
      w.on('message', (m) => {
        if (m.type === 'progress') {
          done += m.done;
          if (done >= next) {
            log(`${done} / ${count} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
            next += 1000;
          }
        } else resolveDone(m);
      });
      w.on('error', reject);
      w.on('exit', (code) => code !== 0 && reject(new Error(`worker ${index} exited with ${code}`)));
    });
  }),
).catch((e) => fail(e.stack ?? String(e)));

const db = openDatabase(out, { readonly: true });
const stored = countResults(db);
db.close();
const seconds = (performance.now() - t0) / 1000;
const sum = (f) => outcomes.reduce((s, o) => s + f(o), 0);
const summary = {
  out,
  count,
  seed,
  workers,
  stored,
  seconds: Math.round(seconds * 100) / 100,
  envelopeBytesAvg: Math.round(sum((o) => o.bytes) / count),
  duplicates: sum((o) => o.duplicates),
  // CPU milliseconds per result, summed over workers: where the time goes.
  msPerResult: Object.fromEntries(
    ['generate', 'sign', 'ingest'].map((k) => [k, Math.round((sum((o) => o.ms[k]) / count) * 100) / 100]),
  ),
};
if (args.json) console.log(JSON.stringify(summary));
else
  log(
    `${count} results in ${summary.seconds} s (${Math.round(count / seconds)}/s, ${workers} workers) into ${out}; ` +
      `envelope ${Math.round(summary.envelopeBytesAvg / 1024)} KiB avg; ms per result: ${JSON.stringify(summary.msPerResult)}`,
  );
