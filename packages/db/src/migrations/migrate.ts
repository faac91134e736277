import type Database from 'better-sqlite3';
import { INITIAL_SCHEMA } from './01-initial-schema.js';
import { RUN_GROUPS } from './02-run-groups.js';
import { SITE_INDEXES } from './03-site-indexes.js';
import { measurementsMigration } from './04-measurements.js';
import { COHORT_INDEXES } from './05-cohort-indexes.js';
import { WARNINGS_INDEX } from './06-warnings-index.js';
import { KEY_SIGNERS } from './07-key-signers.js';
import { CPU_CACHES } from './08-cpu-caches.js';
import { identityMigration } from './09-identity.js';
import { RESULT_DISPUTES } from './10-disputes.js';
import { NEIGHBOUR_INDEXES } from './11-neighbour-indexes.js';
import { RUN_GROUP_OWNER } from './12-run-group-owner.js';
import { KEY_STATEMENTS } from './13-key-statements.js';
import { envelopeStoreMigration } from './14-envelope-store.js';
import { SchemaVersionError } from './schema-version-error.js';

/**
 * One step of the schema: SQL, or a function for a step whose backfill needs this package's code
 * (migration 4 computes its rows from each stored document as ingest does). It runs inside the
 * migration's transaction either way.
 */
export type Migration = string | ((sqlite: Database.Database) => void);

/**
 * The database's history, oldest first: migration N is `MIGRATIONS[N - 1]`. Up only, and append only:
 * a migration that has shipped is never edited, since databases in the field already ran it. A later
 * change is a new entry at the end.
 */
export const MIGRATIONS: readonly Migration[] = [
  INITIAL_SCHEMA,
  RUN_GROUPS,
  SITE_INDEXES,
  measurementsMigration,
  COHORT_INDEXES,
  WARNINGS_INDEX,
  KEY_SIGNERS,
  CPU_CACHES,
  identityMigration,
  RESULT_DISPUTES,
  NEIGHBOUR_INDEXES,
  RUN_GROUP_OWNER,
  KEY_STATEMENTS,
  envelopeStoreMigration,
];

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

const BOOKKEEPING = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  applied_at TEXT NOT NULL
) STRICT`;

/** The highest migration applied to this database, 0 for a new one. */
export function schemaVersion(sqlite: Database.Database): number {
  const exists = sqlite
    .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!exists) return 0;
  const row = sqlite.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Bring the database up to `migrations.length`, one transaction per migration, and return the versions
 * applied. Each migration commits with its row in schema_migrations, so a crash between two leaves a
 * database at a known version that the next open continues from.
 *
 * BEGIN IMMEDIATE takes the write lock before the version is read again: two processes opening the same
 * new file at once (the server and a `db:build`) then run each migration exactly once between them.
 */
export function applyMigrations(
  sqlite: Database.Database,
  migrations: readonly Migration[] = MIGRATIONS,
  now: () => Date = () => new Date(),
): number[] {
  refuseNewer(schemaVersion(sqlite), migrations.length);
  sqlite.exec(BOOKKEEPING);
  const record = sqlite.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
  const applied: number[] = [];
  migrations.forEach((migration, i) => {
    const version = i + 1;
    const step = sqlite.transaction(() => {
      if (schemaVersion(sqlite) >= version) return;
      if (typeof migration === 'string') sqlite.exec(migration);
      else migration(sqlite);
      record.run(version, now().toISOString());
      applied.push(version);
    });
    step.immediate();
  });
  return applied;
}

/**
 * A read-only connection cannot migrate: it can only say whether the file is the version this code
 * reads. Older files need one read-write open (any write command does it) first.
 */
export function checkMigrated(
  sqlite: Database.Database,
  migrations: readonly Migration[] = MIGRATIONS,
): void {
  const version = schemaVersion(sqlite);
  refuseNewer(version, migrations.length);
  if (version < migrations.length)
    throw new SchemaVersionError(
      'SCHEMA_TOO_OLD',
      version,
      migrations.length,
      `database schema version ${version} is older than this redis-benchdb (needs ${migrations.length}) and it was opened read-only: open it read-write once to migrate it`,
    );
}

function refuseNewer(version: number, known: number): void {
  // Running old code on a new file could write rows a newer column or constraint depends on: refuse
  // rather than guess which tables are safe.
  if (version > known)
    throw new SchemaVersionError(
      'SCHEMA_TOO_NEW',
      version,
      known,
      `database schema version ${version} is newer than this redis-benchdb (knows up to ${known}): upgrade redis-benchdb`,
    );
}
