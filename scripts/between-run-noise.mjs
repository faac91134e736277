// The between-run noise of the repeated results in a database: for each environment fingerprint with
// two results or more, each cell's CV across runs (the spread the site's verdicts must clear; see
// packages/result/src/noise.ts). This is how DEFAULT_BETWEEN_RUN_CV is measured: run the quick suite
// five times on a quiet machine into one fresh database, then
//   pnpm -s build && node scripts/between-run-noise.mjs --db PATH [--json]
// Cells with a no-verdict warning (BUSY_HOST, DRIFT, UNSTABLE...), copies and retracted results are
// left out, as the site leaves them out. The summary gives the median, 90th percentile and largest
// per-cell CV of the environment with most results.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openDatabase, repeatedEnvironments, repeatedMedians } from '@redis-benchdb/db';
import { coefficientOfVariation, MIN_REPEATED_RESULTS } from '@redis-benchdb/result';

const { values: args } = parseArgs({
  options: { db: { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean' } },
});
if (args.help || !args.db) {
  process.stderr.write('usage: node scripts/between-run-noise.mjs --db PATH [--json]\n');
  process.exit(args.help ? 0 : 2);
}
if (!existsSync(args.db)) {
  process.stderr.write(
    `between-run-noise: no database at ${args.db}: give the file \`redis-benchdb run --db\` stored into\n`,
  );
  process.exit(2);
}

const db = openDatabase(args.db, { readonly: true });
const environments = repeatedEnvironments(db).map(({ environmentFingerprint, results }) => {
  const cells = [...repeatedMedians(db, environmentFingerprint)]
    .filter(([, c]) => c.medians.length >= 2)
    .map(([workloadFingerprint, c]) => ({
      label: c.label,
      workloadFingerprint,
      results: c.medians.length,
      cv: coefficientOfVariation(c.medians),
    }));
  const cvs = cells.map((c) => c.cv).sort((a, b) => a - b);
  const at = (p) => cvs[Math.min(cvs.length - 1, Math.ceil(p * cvs.length) - 1)] ?? null;
  return { environmentFingerprint, results, cells, summary: { median: at(0.5), p90: at(0.9), max: at(1) } };
});
db.close();

const pct = (x) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);
if (args.json)
  process.stdout.write(
    `${JSON.stringify({ minRepeatedResults: MIN_REPEATED_RESULTS, environments }, null, 2)}\n`,
  );
else if (environments.length === 0) process.stdout.write('no environment has two results or more\n');
else
  for (const e of environments) {
    process.stdout.write(
      `${e.environmentFingerprint}: ${e.results} results; per-cell CV median ${pct(e.summary.median)}, p90 ${pct(e.summary.p90)}, max ${pct(e.summary.max)}\n`,
    );
    for (const c of e.cells)
      process.stdout.write(`  ${c.label.padEnd(24)} ${pct(c.cv).padStart(6)} over ${c.results} results\n`);
  }
