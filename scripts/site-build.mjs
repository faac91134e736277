// pnpm site:build [--db PATH] [--out DIR] [--site-url URL] [--png]: build the static site from a database.
// The database is the one `redis-benchdb run` stores into ($REDIS_BENCHDB_DB, else the default path),
// so the same --db that run, import and redis-benchdb-server take picks another one here too.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

let values;
try {
  ({ values } = parseArgs({
    options: {
      db: { type: 'string' },
      out: { type: 'string' },
      'site-url': { type: 'string' },
      png: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (e) {
  console.error(
    `site:build: ${e.message}\nUsage: pnpm site:build [--db PATH] [--out DIR] [--site-url URL] [--png]`,
  );
  process.exit(2);
}
if (values.help) {
  console.log(`Usage: pnpm site:build [--db PATH] [--out DIR] [--site-url URL] [--png]

  --db PATH        the SQLite database to build from (default: $REDIS_BENCHDB_DB, else
                   ~/.local/share/redis-benchdb/benchdb.sqlite, where redis-benchdb run stores results)
  --out DIR        where the site goes (default: site/dist)
  --site-url URL   the public address, for embed snippets and Open Graph cards (default: http://localhost:4321)
  --png            also draw every chart as PNG, for a static host (minutes at thousands of results; a
                   cache makes a rebuild draw only new charts). Without it the pages offer each chart
                   as SVG, and the publishing service (redis-benchdb-server --site-dir) draws a PNG
                   when one is first asked for`);
  process.exit(0);
}
const env = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
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
if (values['site-url']) env.REDIS_BENCHDB_SITE_URL = values['site-url'];
if (values.png) env.REDIS_BENCHDB_SITE_PNG = 'all';
// The build opens the database read-only; an older file is brought to this version's schema first,
// as every redis-benchdb command does when it opens one.
{
  const { openDatabase, defaultDatabasePath, SCHEMA_VERSION } = await import(
    new URL('../packages/db/dist/index.js', import.meta.url)
  );
  const path = env.REDIS_BENCHDB_DB || defaultDatabasePath();
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
const siteDir = fileURLToPath(new URL('../site/', import.meta.url));
const astro = fileURLToPath(new URL('../site/node_modules/astro/astro.js', import.meta.url));
// Astro stages its server chunks under <cwd>/.astro when the output folder is elsewhere: a working
// folder of this build's own keeps two builds (a test and a bench, say) from deleting each other's.
const cacheDir = join(siteDir, 'node_modules/.cache');
mkdirSync(cacheDir, { recursive: true });
const cwd = mkdtempSync(join(cacheDir, 'astro-build-'));
// A killed build's leftover is told by its pid, as the open-data cache tells a stopped build's.
const { alive } = await import(new URL('../site/integration/open-data.mjs', import.meta.url));
const removing = moveAside(env.REDIS_BENCHDB_SITE_OUT || join(siteDir, 'dist'));
try {
  // The pages' short-lived objects (charts, views) fill V8's default young generation every few
  // milliseconds: a larger one spends less of the build collecting them (see prepare-pool.ts).
  const argv = ['--max-semi-space-size=64', astro, 'build', '--root', siteDir];
  const r = spawnSync(process.execPath, argv, { cwd, env, stdio: 'inherit' });
  process.exitCode = r.status ?? 1;
} finally {
  rmSync(cwd, { recursive: true, force: true });
  await removing;
}

/**
 * Astro empties the output folder before it builds, a file at a time on its main thread: 21 s for a
 * 10,000-result site (146,800 files) before the first page. So a previous build is renamed aside and
 * removed by `rm -rf` while the new one builds; this command waits for it before it ends. A folder
 * holding .git (a deploy checkout, which Astro keeps) is left to Astro, and so is one that cannot be
 * renamed (a mount point). Leftovers of a build that was killed (its pid gone) go too.
 */
function moveAside(out) {
  const parent = dirname(out);
  const name = basename(out);
  const stale = existsSync(parent)
    ? readdirSync(parent).filter(
        (n) => n.startsWith(`.${name}.old-`) && !alive(Number(n.slice(name.length + 6))),
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
