// pnpm site:build [--db PATH] [--out DIR] [--site-url URL] [--png] [--verbose]: build the static site from a
// database, and end with the newest result's address on it and the command that serves it.
// The database is the one `redis-benchdb run` stores into ($REDIS_BENCHDB_DB, else the default path),
// so the same --db that run, import and redis-benchdb-server take picks another one here too.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildLogPath, pnpmAsCalled, resultLine, runLogged, shortPath } from './lib/site-build-output.mjs';

let values;
try {
  ({ values } = parseArgs({
    options: {
      db: { type: 'string' },
      out: { type: 'string' },
      'site-url': { type: 'string' },
      png: { type: 'boolean' },
      verbose: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (e) {
  console.error(
    `site:build: ${e.message}\nUsage: pnpm site:build [--db PATH] [--out DIR] [--site-url URL] [--png] [--verbose]`,
  );
  process.exit(2);
}
if (values.help) {
  console.log(`Usage: pnpm site:build [--db PATH] [--out DIR] [--site-url URL] [--png] [--verbose]

  --db PATH        the SQLite database to build from (default: $REDIS_BENCHDB_DB, else
                   ~/.local/share/redis-benchdb/benchdb.sqlite, where redis-benchdb run stores results)
  --out DIR        where the site goes (default: site/dist). The build replaces the folder whole, so it
                   must be new, empty, or one site:build made (it leaves a .redis-benchdb-site file)
  --site-url URL   the public address, for embed snippets and Open Graph cards (default: http://localhost:4321)
  --png            also draw every chart as PNG, for a static host (minutes at thousands of results; a
                   cache makes a rebuild draw only new charts). Without it the pages offer each chart
                   as SVG, and the publishing service (redis-benchdb-server --site-dir) draws a PNG
                   when one is first asked for
  --verbose, -v    print Astro's build log (without it the log goes to a file under
                   ~/.local/state/redis-benchdb/site-build/, named when the build ends, and only its
                   warnings and errors are printed)`);
  process.exit(0);
}
const env = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
// What the publishing service keys its kept result pages on (site/src/lib/build/frozen-pages.ts).
env.REDIS_BENCHDB_SITE_TEMPLATE ||= (await import('./lib/template-version.mjs')).templateVersion();
if (values.db) {
  const db = resolve(values.db);
  if (!existsSync(db)) {
    console.error(
      `site:build: no database at ${db}: give the path of a redis-benchdb database (run --db, import --db)`,
    );
    process.exit(2);
  }
  env.REDIS_BENCHDB_DB = db;
}
if (values.out) env.REDIS_BENCHDB_SITE_OUT = resolve(values.out);
const { checkOutFolder, isMarked, markOutFolder } = await import('./lib/out-folder.mjs');
const siteDir = fileURLToPath(new URL('../site/', import.meta.url));
const out = env.REDIS_BENCHDB_SITE_OUT || join(siteDir, 'dist');
try {
  checkOutFolder(out, { ownDefault: !values.out || out === join(siteDir, 'dist') });
} catch (e) {
  if (!e.code?.startsWith('ERR_OUT_')) throw e;
  console.error(`site:build: ${e.message}`);
  process.exit(2);
}
if (values['site-url']) env.REDIS_BENCHDB_SITE_URL = values['site-url'];
if (values.png) env.REDIS_BENCHDB_SITE_PNG = 'all';
// The build opens the database read-only; an older file is brought to this version's schema first,
// as every redis-benchdb command does when it opens one.
const db = await import('@redis-benchdb/db');
const dbPath = env.REDIS_BENCHDB_DB || db.defaultDatabasePath();
{
  const { openDatabase, SCHEMA_VERSION } = db;
  const path = dbPath;
  if (existsSync(path)) {
    try {
      openDatabase(path, { readonly: true }).close();
    } catch (e) {
      if (e.code !== 'SCHEMA_TOO_OLD') throw e;
      console.log(`site:build: migrating ${path} to schema ${SCHEMA_VERSION}`);
      openDatabase(path).close();
    }
  }
}
const astro = fileURLToPath(new URL('../site/node_modules/astro/bin/astro.mjs', import.meta.url));
// Astro stages its server chunks under <cwd>/.astro when the output folder is elsewhere: a working
// folder of this build's own keeps two builds (a test and a bench, say) from deleting each other's.
const cacheDir = join(siteDir, 'node_modules/.cache');
mkdirSync(cacheDir, { recursive: true });
const cwd = mkdtempSync(join(cacheDir, 'astro-build-'));
// A killed build's leftover is told by its pid, as the open-data cache tells a stopped build's.
const { alive } = await import(new URL('../site/integration/open-data.mjs', import.meta.url));
const logPath = buildLogPath(out);
const removing = moveAside(out);
const started = Date.now();
try {
  // The pages' short-lived objects (charts, views) fill V8's default young generation every few
  // milliseconds: a larger one spends less of the build collecting them (see prepare-pool.ts).
  const argv = ['--max-semi-space-size=64', astro, 'build', '--root', siteDir];
  if (values.verbose)
    process.exitCode = spawnSync(process.execPath, argv, { cwd, env, stdio: 'inherit' }).status ?? 1;
  else process.exitCode = await runLogged(argv, { cwd, env }, logPath);
} finally {
  rmSync(cwd, { recursive: true, force: true });
  markOutFolder(out);
  await removing;
}
const logNote = values.verbose ? '' : `; Astro's log: ${shortPath(logPath)}`;
if (process.exitCode !== 0) console.error(`site:build: the build failed${logNote}`);
else {
  console.log(
    `site:build: built ${shortPath(out)} in ${Math.round((Date.now() - started) / 1000)} s${logNote}`,
  );
  console.log(...newestResult());
  console.log(`serve it: ${pnpmAsCalled()} site:preview`);
}

/** The newest result's line and its address on the local site, or what there is instead. */
function newestResult() {
  if (!existsSync(dbPath)) return [`no results yet: there is no database at ${dbPath}`];
  const handle = db.openDatabase(dbPath, { readonly: true });
  try {
    const [newest] = db.listResults(handle, { limit: 1 });
    if (!newest) return [`no results yet in ${dbPath}`];
    return [`newest result: ${resultLine(newest)}\n  http://localhost:4321${db.resultPagePath(newest.id)}`];
  } finally {
    handle.close();
  }
}

/**
 * Astro empties the output folder before it builds, a file at a time on its main thread: 21 s for a
 * 10,000-result site (146,800 files) before the first page. So a previous build is renamed aside and
 * removed by `rm -rf` while the new one builds; this command waits for it before it ends. A folder
 * holding .git (a deploy checkout, which Astro keeps) is left to Astro, and so is one that cannot be
 * renamed (a mount point). Leftovers of a build that was killed (its pid gone) go too, when they
 * hold the build's marker (scripts/lib/out-folder.mjs): only a folder the build made is ever removed.
 */
function moveAside(out) {
  const parent = dirname(out);
  const name = basename(out);
  const stale = existsSync(parent)
    ? readdirSync(parent).filter(
        (n) =>
          n.startsWith(`.${name}.old-`) &&
          !alive(Number(n.slice(name.length + 6))) &&
          isMarked(join(parent, n)),
      )
    : [];
  const doomed = stale.map((n) => join(parent, n));
  if (existsSync(out) && !existsSync(join(out, '.git'))) {
    const aside = join(parent, `.${name}.old-${process.pid}`);
    try {
      renameSync(out, aside);
      doomed.push(aside);
    } catch {
      // Astro empties it as it always has.
    }
  }
  if (doomed.length === 0) return Promise.resolve();
  return new Promise((done) => {
    const rm = spawn('rm', ['-rf', ...doomed], { stdio: 'ignore' });
    rm.on('error', () => {
      for (const d of doomed) rmSync(d, { recursive: true, force: true });
      done();
    });
    rm.on('close', done);
  });
}
