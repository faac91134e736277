// The README's test command: vitest with its usual report, then plain closing lines that any CI can
// read ("N passed, N failed", and how many load-sensitive claims went unchecked on a busy host), and
// vitest's own exit code. Arguments are passed to `vitest run` (--project NAME, file filters).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'rbdb-vitest-'));
const out = join(dir, 'results.json');
const vitest = spawnSync(
  'vitest',
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...process.argv.slice(2)],
  { stdio: 'inherit', shell: false },
);
let summary = 'no test results were written';
try {
  const r = JSON.parse(readFileSync(out, 'utf8'));
  summary = `${r.numPassedTests} passed, ${r.numFailedTests} failed${r.numPendingTests ? `, ${r.numPendingTests} skipped` : ''}`;
  summary += `\n${skippedClaims(r)}`;
} catch {}
rmSync(dir, { recursive: true, force: true });
console.log(summary);
process.exit(vitest.status ?? 1);

/**
 * The tests that passed without holding their load-sensitive claim, which they record in their
 * task meta (packages/testing/src/skipped-claim.ts): one line with the count, then one each.
 */
function skippedClaims(report) {
  const skipped = report.testResults.flatMap((file) =>
    file.assertionResults
      .filter((t) => typeof t.meta?.skippedClaim === 'string')
      .map(
        (t) =>
          `  ${[relative(process.cwd(), file.name), ...t.ancestorTitles, t.title].join(' > ')}: ${t.meta.skippedClaim}`,
      ),
  );
  const n = skipped.length;
  return [
    `${n} load-sensitive claim${n === 1 ? '' : 's'} skipped on a busy host${n ? ':' : ''}`,
    ...skipped,
  ].join('\n');
}
