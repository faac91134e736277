import { type BenchDb, openDatabase } from '@redis-benchdb/db';
import { CliError } from '../errors.js';

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
  const db = openLocalDatabase(path, opts);
  if (db) return db;
  throw new CliError(
    `${command} needs the local SQLite database, and better-sqlite3 (a native module the runner does not install) is missing: install it where redis-benchdb is installed (npm install better-sqlite3) and run this again, or under npx: npx -p redis-benchdb -p better-sqlite3 redis-benchdb ${command} ...`,
    'ERR_NO_SQLITE',
  );
}

function isSqliteMissing(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    (e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_MODULE_NOT_FOUND') &&
    /better-sqlite3/.test(e.message ?? '')
  );
}
