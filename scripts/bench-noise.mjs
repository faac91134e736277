// Between-run noise of one environment: the quick suite N times on a quiet machine, then M times
// with a CPU hog on the server's CPU, each run a separate `redis-benchdb run` against its own
// throwaway server, pinned (server on the last CPU, client on the others).
//   pnpm bench:noise [--quiet-runs 5] [--hog-runs 2] [--server-bin PATH] [--out DIR] [--json] [--tests LIST]
// Prints, per cell, the median ops/s of every run and the between-run coefficient of variation
// (sample standard deviation of the runs' medians over their mean) of the quiet runs, and the
// figure a verdict's default noise should use: the largest per-cell CV (a verdict must stay silent
// for every cell of two equal runs, not for the typical one). Each run's signed result is kept in
// --out (default: a new temporary directory), so the figures can be checked and the results
// compared on the site.
// The hog is one busy process pinned to the server's CPU for exactly the length of its run, ended
// by its pid when the run ends.

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describeMachine, fmt, markdownTable, positiveFlag } from './lib/bench.mjs';
import { CLI } from './lib/redis-benchdb.mjs';

const { values: args } = parseArgs({
  options: {
    'quiet-runs': { type: 'string', default: '5' },
    'hog-runs': { type: 'string', default: '2' },
    'server-bin': { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean', default: false },
    // Instead of the quick suite, these tests with -n 20000 each: a smoke run of this script.
    tests: { type: 'string' },
  },
});
const quietRuns = positiveFlag('bench-noise', args, 'quiet-runs', { integer: true });
const hogRuns = Number(args['hog-runs']);
if (!Number.isInteger(hogRuns) || hogRuns < 0) {
  console.error('bench-noise: --hog-runs must be a whole number, 0 or more');
  process.exit(2);
}
const serverBin = args['server-bin'] ?? whichServer();
const out = args.out ?? mkdtempSync(join(tmpdir(), 'rbdb-noise-'));
mkdirSync(out, { recursive: true });
const n = cpus().length;
// The server gets the last CPU, the client the rest; on one CPU nothing is pinned.
const serverCpu = n > 1 ? String(n - 1) : null;
const clientCpus = n > 1 ? (n === 2 ? '0' : `0-${n - 2}`) : null;

function whichServer() {
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const p = r.stdout.trim();
  if (!p) {
    console.error('bench-noise: no redis-server on PATH; give one with --server-bin PATH');
    process.exit(2);
  }
  return p;
}

/** A busy loop pinned to the server's CPU until killed (and at most `maxSec`, should we die first). */
function startHog(maxSec) {
  const loop = `const end = Date.now() + ${maxSec * 1000}; while (Date.now() < end) {}`;
  const argv = serverCpu
    ? ['taskset', '-c', serverCpu, process.execPath, '-e', loop]
    : [process.execPath, '-e', loop];
  return spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
}

function runOnce(i, hog) {
  const file = join(out, `${hog ? 'hog' : 'quiet'}-${i}.json`);
  const argv = [CLI, 'run', '--server-bin', serverBin, '--no-store', '--json', '--out', file];
  if (args.tests) argv.push('-t', args.tests, '-n', '20000');
  if (serverCpu) argv.push('--server-cpus', serverCpu, '--client-cpus', clientCpus);
  const hogChild = hog ? startHog(600) : null;
  process.stderr.write(
    `bench-noise: ${hog ? 'hogged' : 'quiet'} run ${i} of ${hog ? hogRuns : quietRuns}...\n`,
  );
  const r = spawnSync(process.execPath, argv, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (hogChild?.pid) process.kill(hogChild.pid, 'SIGKILL');
  if (r.status !== 0 && !r.stdout.trim().startsWith('{')) {
    console.error(`bench-noise: run failed (exit ${r.status}):\n${r.stderr}`);
    process.exit(1);
  }
  return { file, doc: JSON.parse(r.stdout) };
}

const quiet = [];
for (let i = 1; i <= quietRuns; i++) quiet.push(runOnce(i, false));
const hogged = [];
for (let i = 1; i <= hogRuns; i++) hogged.push(runOnce(i, true));

const labels = quiet[0].doc.cells.map((c) => c.label);
const medianOf = (doc, label) => doc.cells.find((c) => c.label === label)?.opsPerSec.median ?? null;
const flagsOf = (doc, label) => doc.warnings.filter((w) => w.cell === label).map((w) => w.code);
function cv(xs) {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const v = xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1);
  return Math.sqrt(v) / m;
}
const rows = labels.map((label) => {
  const q = quiet.map((r) => medianOf(r.doc, label)).filter((x) => x !== null);
  return {
    cell: label,
    quiet: q,
    cv: q.length >= 2 ? cv(q) : null,
    hogged: hogged.map((r) => medianOf(r.doc, label)),
    hoggedFlags: hogged.map((r) => flagsOf(r.doc, label)),
    quietFlags: quiet.map((r) => flagsOf(r.doc, label)),
  };
});
const cvs = rows
  .map((r) => r.cv)
  .filter((x) => x !== null)
  .sort((a, b) => a - b);
const summary = {
  machine: describeMachine(serverBin),
  serverBin,
  out,
  quietRuns,
  hogRuns,
  medianCv: cvs[Math.floor(cvs.length / 2)] ?? null,
  maxCv: cvs.at(-1) ?? null,
  files: { quiet: quiet.map((r) => r.file), hogged: hogged.map((r) => r.file) },
  cells: rows,
};
if (args.json) {
  console.log(JSON.stringify(summary, null, 2));
} else {
  const m = summary.machine;
  console.log(`${m.cpu}, ${m.nproc} CPUs, Node ${m.node}\nserver ${serverBin}; results in ${out}\n`);
  console.log(
    markdownTable(
      [
        'cell',
        ...quiet.map((_, i) => `quiet ${i + 1}`),
        'CV',
        ...hogged.map((_, i) => `hog ${i + 1}`),
        'hog flags',
      ],
      rows.map((r) => [
        r.cell,
        ...r.quiet.map((x) => fmt(x)),
        r.cv === null ? '-' : `${(r.cv * 100).toFixed(1)}%`,
        ...r.hogged.map((x) => (x === null ? '-' : fmt(x))),
        [...new Set(r.hoggedFlags.flat())].join(' ') || '-',
      ]),
    ),
  );
  const quietFlagged = rows.filter((r) => r.quietFlags.some((f) => f.length > 0));
  console.log(
    `\nbetween-run CV of the quiet runs: median ${(summary.medianCv * 100).toFixed(1)}%, largest ${(summary.maxCv * 100).toFixed(1)}%`,
  );
  if (quietFlagged.length > 0)
    console.log(
      `quiet cells with warnings: ${quietFlagged.map((r) => `${r.cell} (${[...new Set(r.quietFlags.flat())].join(' ')})`).join(', ')}`,
    );
}
