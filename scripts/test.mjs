// The README's test command: vitest with its usual report, then one plain closing line
// ("N passed, N failed") that any CI can read, and vitest's own exit code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
} catch {}
rmSync(dir, { recursive: true, force: true });
console.log(summary);
process.exit(vitest.status ?? 1);
