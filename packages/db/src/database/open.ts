import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { applyMigrations, checkMigrated } from '../migrations/migrate.js';
import { prepareStatements, type Statements } from './statements.js';

export interface OpenOptions {
  /** Open without write access: no migration runs, and a file that needs one is refused. @default false */
  readonly?: boolean;
}

/** An open database. Open it once per process and pass it around: statements are prepared at open. */
export interface BenchDb {
  /** The better-sqlite3 connection, for what this package does not wrap. */
  readonly sqlite: Database.Database;
  readonly path: string;
  readonly readonly: boolean;
  /** Prepared at open; for this package's functions. */
  readonly statements: Statements;
  close(): void;
}

export const DEFAULT_OPEN_OPTIONS: Required<OpenOptions> = { readonly: false };

/** Give up on a lock held by another connection after this long (the server and a `db:build` may overlap). */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Open (creating it and its directory if need be) and migrate a database. `':memory:'` works too,
 * for throwaway use.
 */
export function openDatabase(path: string, opts: OpenOptions = {}): BenchDb {
  const { readonly } = { ...DEFAULT_OPEN_OPTIONS, ...opts };
  if (!readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { readonly, fileMustExist: readonly, timeout: BUSY_TIMEOUT_MS });
  try {
    configure(sqlite, readonly);
    if (readonly) checkMigrated(sqlite);
    else applyMigrations(sqlite);
    const statements = prepareStatements(sqlite);
    return { sqlite, path, readonly, statements, close: () => sqlite.close() };
  } catch (e) {
    sqlite.close();
    throw e;
  }
}

function configure(sqlite: Database.Database, readonly: boolean): void {
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Off by default in SQLite, per connection: without it the REFERENCES clauses are decoration.
  sqlite.pragma('foreign_keys = ON');
  if (readonly) return; // WAL is a property of the file, set by the first writer; a reader cannot set it.
  // WAL: the site's build and the server's readers never block the one writer, nor it them.
  sqlite.pragma('journal_mode = WAL');
  // FULL fsyncs the WAL at every commit. With NORMAL a commit survives a killed process but the last
  // ones can vanish on power loss or a kernel crash, and we answer "stored" to a submitter who then
  // deletes the file. The cost is one fsync per submission (milliseconds), and submissions arrive at
  // human pace: durability wins. Bulk loads (db:build) still commit once per result, which is fine.
  sqlite.pragma('synchronous = FULL');
}
