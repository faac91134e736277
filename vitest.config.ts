import { existsSync, readdirSync } from 'node:fs';
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
  'site/test/secrets-to-site.test.ts',
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
    'group-comparison',
    'warning-lines',
    // cli, launch, sign-verify, cleanup, result, submit and sysinfo start a redis-server each and
    // time nothing, but sharing the machine did not make the suite faster: two busy servers on two
    // cores cost what the parallelism saved (the clean-clone run took 1,103 s with them here, 1,028 s
    // without). They run one at a time.
  ]),
  ...tests('packages/runner/test', ['drift-cell', 'scrub']),
  ...tests('packages/engine/test', [
    'cluster-slots',
    'keys',
    'reply-limits',
    'reply-reader',
    'request-template',
  ]),
  ...tests('packages/probe/test', ['built-servers', 'clean', 'si-facts', 'warnings']),
  ...tests('packages/server/test', ['copies', 'dockerfile', 'main', 'png-on-request', 'proxy', 'publish']),
  ...tests('scripts/test', [
    'architecture',
    'data-results',
    'gen-result-types',
    'gen-synthetic-db',
    'site-build-out',
    'between-run-noise',
    'bench-parsers',
    'dataset-halfwidth',
    'docs',
  ]),
].filter((f) => !RUN_A_SERVER.has(f));

// The long tier: whole-product runs of a minute or more each on a 2-core machine (the real site
// built by astro and read in Chromium, the benchmark scripts' smoke runs, the dataset flow, the
// SLO searches that track a server). `pnpm test` leaves them out so that it stays under 15 minutes;
// `pnpm test:long` runs them, and CI (.ci/run) runs both. A file moves here for its time, never to
// hide a failure.
const LONG = new Set([
  'site/test/pages.test.ts',
  'site/test/site.test.ts',
  'site/test/dataset-site.test.ts',
  'site/test/explore.test.ts',
  'site/test/embed-pixels.test.ts',
  'site/test/signers.test.ts',
  'site/test/run-to-site.test.ts',
  // Issue 40: two launched servers, a socket run and a site build (about a minute).
  'site/test/secrets-to-site.test.ts',
  'site/test/slo.test.ts',
  // Issue 27: each builds a site (data/, and a synthetic one) and reads it in Chromium: 153 s and 93 s.
  'site/test/summaries-data.test.ts',
  'site/test/summaries-kinds.test.ts',
  // Issue 28: the site from data/, every group and version page in Chromium at two widths.
  'site/test/first-screen-gv.test.ts',
  'scripts/test/bench-scripts.test.ts',
  'scripts/test/dataset-run.test.ts',
  'packages/engine/test/slo-tracks-server.test.ts',
  // 2026-11-25, `pnpm test` on a quiet 2-core VM: 955 s with these two in it (59 s and 34 s).
  'packages/engine/test/slo.test.ts',
  'packages/cli/test/launch.test.ts',
  // 2026-11-25, a later session: 914 s with this one in it (29 s of SLO searches through the CLI).
  'packages/cli/test/slo.test.ts',
  // Issue 34's reproduction: ten CLI runs, five with a busy loop on the server's CPU (over a minute).
  'packages/cli/test/busy-host-hog.test.ts',
  // 2026-11-28, at load average 12: 473 s (a pack, a global install, better-sqlite3 compiled under npx).
  'packages/cli/test/hints.test.ts',
  // 2026-11-28, at load average 15: 136 s (two runs through pnpm, one with its cleanup held by a pause).
  'packages/cli/test/launcher.test.ts',
  // A fresh clone's install from the npm registry with an empty store, then a short run and the site:
  // 1,443 s on 2026-11-28 at load average 15 (the install alone about 18 minutes).
  'scripts/test/readme-commands.test.ts',
  // 2026-11-28: three bursts of 200 chart PNGs drawn by resvg, 36-67 s on a loaded 2-core VM.
  'packages/server/test/png-burst.test.ts',
  // Issue 28: builds the site from data/ and reads its every page at two widths in Chromium.
  'site/test/page-budgets.test.ts',
  // Issue 39: builds the site from data/ and reads every page and explorer JSON for its intervals.
  'site/test/intervals-data.test.ts',
  // Issue 44: the site from data/, the home's first screen, every page's verdicts at 390, every date.
  'site/test/reader-pages.test.ts',
  // Issue 39: the site from data/ built four times around forged submissions to the real service
  // (about 70 s a build on a shared 2-core VM).
  'site/test/forgery-e2e.test.ts',
  // Issue 44 items 5 and 6: the site from data/, the home's leader and a version page's groups in Chromium.
  'site/test/paired-sources-data.test.ts',
  // Issue 42: four real site builds through the publishing service (kept result pages).
  'packages/server/test/kept-pages.test.ts',
]);

// A renamed file would silently leave both tiers: say so instead.
for (const f of LONG)
  if (!existsSync(new URL(f, import.meta.url)))
    throw new Error(`vitest.config.ts: LONG names ${f}, which does not exist`);

// A limit on a test's time is only a guard against a hang, never a guess at how slow the machine is;
// it is set per tier, so that a hung test fails within a minute or two where tests are short. The
// shared tier's tests take seconds on a quiet 2-core machine: 60 s a test and a hook. The serial tier's
// drive a redis-server through the CLI or the service, and a loaded host stretches them most: at load
// average 20 on 2 cores (four sessions sharing the machine, 2026-12-07) cli.test's kill-mid-run cases took
// 50-62 s, 10-25 s quiet: 120 s. A test or hook that does more says so with its own larger timeout, and
// why: a site built in a hook (about 70 s a build on a shared VM), the concurrency tests (17-19 s quiet:
// 300 s), the Dockerfile's install and build (600 s). The long tiers' whole-product runs keep 600 s,
// and the longest of them set their own (readme-commands, an hour; hints, its pack backstop).
const SHARED_GUARD = { testTimeout: 60_000, hookTimeout: 60_000 };
const SERIAL_GUARD = { testTimeout: 120_000, hookTimeout: 120_000 };
const LONG_GUARD = { testTimeout: 600_000, hookTimeout: 600_000 };

const shared = { maxWorkers: 2 };
// Load tests share one 2-core machine with the redis-server they drive: one file at a time, so one
// test's load does not skew another's numbers or time it out.
const serial = { fileParallelism: false };
const exclude = ['**/node_modules/**'];

export default defineConfig({
  test: {
    // Each tier's files that share the machine run before its serial ones: nothing shares the
    // machine with a load test. `pnpm test` runs shared and serial; `pnpm test:long` the long-* ones.
    projects: [
      {
        test: {
          name: 'shared',
          include: SHARES_THE_MACHINE.filter((f) => !LONG.has(f)),
          ...shared,
          ...SHARED_GUARD,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'serial',
          include: ALL,
          exclude: [...SHARES_THE_MACHINE, ...LONG, ...exclude],
          ...serial,
          ...SERIAL_GUARD,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'long-shared',
          include: SHARES_THE_MACHINE.filter((f) => LONG.has(f)),
          ...shared,
          ...LONG_GUARD,
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          name: 'long-serial',
          include: [...LONG].filter((f) => !SHARES_THE_MACHINE.includes(f)),
          exclude,
          ...serial,
          ...LONG_GUARD,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
