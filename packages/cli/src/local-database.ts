import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type BenchDb, defaultDatabasePath, openDatabase } from '@redis-benchdb/db';
import { CliError } from './errors.js';
import { type Invocation, invocation, startWords } from './invocation.js';

/** Where `run` keeps each signed result as a file: `results/` beside the local database. */
export function resultsDir(dbPath?: string): string {
  return join(dirname(dbPath ?? defaultDatabasePath()), 'results');
}

/**
 * The local SQLite database is optional: better-sqlite3 is a native module, so the npm package
 * does not install it (an optional peer; bundle.mjs loads it only when a database is opened).
 * Without it, `run` keeps each result as a signed file only (run/keep.ts).
 */
export function openLocalDatabase(path: string, opts: { readonly?: boolean } = {}): BenchDb | null {
  try {
    return openDatabase(path, opts);
  } catch (err) {
    if (isSqliteMissing(err)) return null;
    throw err;
  }
}

/** The same, for a command that cannot do without it: a missing module is a clear error. */
export function needLocalDatabase(command: string, path: string, opts: { readonly?: boolean } = {}): BenchDb {
  let db: BenchDb | null;
  try {
    db = openLocalDatabase(path, opts);
  } catch (err) {
    // Read-only opens do not create the file: say what is missing instead of SQLite's own words.
    if (opts.readonly && !existsSync(path))
      throw new CliError(
        `${command} reads the local database, and there is none at ${path} yet: run keeps each result in it (when better-sqlite3 is installed) and import adds published ones; or name another with --db`,
        'ERR_NO_DATABASE',
      );
    throw err;
  }
  if (db) return db;
  throw new CliError(
    `${command} needs the local SQLite database, and better-sqlite3 (a native module the runner does not install) is missing: ${addSqlite(command)}`,
    'ERR_NO_SQLITE',
  );
}

/** How to add better-sqlite3 beside this CLI and run `command` again, for the way it was started. */
export function addSqlite(command: string, how: Invocation = invocation()): string {
  switch (how.kind) {
    case 'npx':
      return `run it with better-sqlite3 beside it: ${startWords(how, ['better-sqlite3'])} ${command} ...`;
    case 'path':
      return `install it beside the global redis-benchdb (npm install -g better-sqlite3), then run ${startWords(how)} ${command} ... again`;
    case 'local':
      return `install it in this project (npm install better-sqlite3), then run ${startWords(how)} ${command} ... again`;
    default:
      return `install it where redis-benchdb is installed (npm install better-sqlite3) and run this again`;
  }
}

function isSqliteMissing(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    (e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_MODULE_NOT_FOUND') &&
    /better-sqlite3/.test(e.message ?? '')
  );
}
