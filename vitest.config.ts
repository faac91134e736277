import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const ALL = ['packages/*/test/**/*.test.ts', 'scripts/test/**/*.test.ts', 'site/test/**/*.test.ts'];

/** The test files of a folder (relative to the repository), or only the named ones. */
const tests = (dir: string, names?: string[]) =>
  names
    ? names.map((n) => `${dir}/${n}.test.ts`)
    : readdirSync(new URL(dir, import.meta.url))
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => `${dir}/${f}`);

// Files that run the runner against a redis-server of their own, in folders that otherwise share.
const RUN_A_SERVER = new Set([
  'packages/result/test/import-memtier-real.test.ts',
  'packages/db/test/run-groups.test.ts',
  'site/test/slo.test.ts',
  'site/test/run-to-site.test.ts',
]);

// Files that time nothing, so they may share the machine with each other: most start no
// redis-server, and most of their time is CPU in one process (the site tests' astro builds, SQLite,
// schema validation), so two at once on the 2-core machine take about half as long. A new test
// file runs in the serial project unless it is named here.
const SHARES_THE_MACHINE = [
  ...tests('packages/result/test'),
  ...tests('packages/db/test'),
  ...tests('site/test'),
  ...tests('packages/cli/test', [
    'help',
    'help-imports',
    'parse-options',
    'program',
    'invocation',
    'view',
    'export',
    'import',
    'drift-cell',
    'group-comparison',
    // cli, launch, sign-verify, cleanup, result, submit and sysinfo start a redis-server each and
    // time nothing, but sharing the machine did not make the suite faster: two busy servers on two
    // cores cost what the parallelism saved (the clean-clone run took 1,103 s with them here, 1,028 s
    // without). They run one at a time.
  ]),
  ...tests('packages/engine/test', ['cluster-slots', 'keys', 'reply-reader', 'request-template']),
  ...tests('packages/probe/test', ['built-servers', 'clean', 'si-facts', 'warnings']),
  ...tests('packages/server/test', [
    'copies',
    'dockerfile',
    'main',
    'png-on-request',
    'proxy',
    'publish',
    'json-depth',
  ]),
  ...tests('scripts/test', [
    'architecture',
    'data-results',
    'gen-result-types',
    'gen-synthetic-db',
    'between-run-noise',
    'bench-parsers',
  ]),
].filter((f) => !RUN_A_SERVER.has(f));

// The one limit on a test's time, and only a guard against a hang: no test waits on a guess of how
// slow the machine is. A test that takes 10 s on a quiet 2-core machine took over a minute at load
// average 10-17, so the guard is generous; tests do not set shorter ones of their own.
const guard = { testTimeout: 600_000, hookTimeout: 600_000 };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'shared',
          include: SHARES_THE_MACHINE,
          maxWorkers: 2,
          minWorkers: 1,
          ...guard,
          // All of it before the serial project starts: nothing shares the machine with a load test.
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'serial',
          include: ALL,
          exclude: [...SHARES_THE_MACHINE, '**/node_modules/**'],
          // Load tests share one 2-core machine with the redis-server they drive: one file at a
          // time, so one test's load does not skew another's numbers or time it out.
          fileParallelism: false,
          ...guard,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
