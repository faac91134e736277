import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  applyMigrations,
  ingest,
  MIGRATIONS,
  openDatabase,
  SCHEMA_VERSION,
  SchemaVersionError,
  schemaVersion,
} from '../src/index.js';
import { body, NOW, suiteRun, tempDb, tempPath, variant } from './fixtures.js';

const migrationRows = (db: Database.Database) =>
  db.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all();

describe('migrations', () => {
  it('brings a new file to the current version, with WAL, FULL sync, foreign keys and a busy timeout', () => {
    const db = tempDb();
    expect(schemaVersion(db.sqlite)).toBe(SCHEMA_VERSION);
    expect(migrationRows(db.sqlite)).toHaveLength(MIGRATIONS.length);
    expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.sqlite.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(db.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('applies no migration twice when a file is reopened', () => {
    const path = tempPath();
    const first = openDatabase(path);
    const { id } = ingest(first, body(suiteRun()), { now: NOW });
    const rows = migrationRows(first.sqlite);
    first.close();
    const again = openDatabase(path);
    expect(migrationRows(again.sqlite)).toEqual(rows);
    expect(applyMigrations(again.sqlite)).toEqual([]);
    expect(again.sqlite.prepare('SELECT count(*) AS n FROM results WHERE id = ?').get(id)).toEqual({ n: 1 });
    again.close();
  });

  it('refuses a file newer than the code', () => {
    const path = tempPath();
    openDatabase(path).close();
    const raw = new Database(path);
    raw.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(SCHEMA_VERSION + 1, NOW.toISOString());
    raw.close();
    const message = `database schema version ${SCHEMA_VERSION + 1} is newer than this redis-benchdb (knows up to ${SCHEMA_VERSION}): upgrade redis-benchdb`;
    expect(() => openDatabase(path)).toThrow(message);
    expect(() => openDatabase(path, { readonly: true })).toThrow(SchemaVersionError);
  });

  it('runs each migration in its own transaction: a failing one leaves the last good version', () => {
    const raw = new Database(tempPath());
    const broken = [...MIGRATIONS, 'CREATE TABLE extra (x INTEGER); INSERT INTO no_such_table VALUES (1);'];
    expect(() => applyMigrations(raw, broken)).toThrow(/no such table/);
    expect(schemaVersion(raw)).toBe(MIGRATIONS.length);
    expect(raw.prepare("SELECT name FROM sqlite_schema WHERE name = 'extra'").get()).toBeUndefined();
    // Fixed, it continues from there.
    const fixed = [...MIGRATIONS, 'CREATE TABLE extra (x INTEGER);'];
    expect(applyMigrations(raw, fixed)).toEqual([MIGRATIONS.length + 1]);
    raw.close();
  });

  it('opens read-only without migrating, and refuses a file that needs migrating', () => {
    const path = tempPath();
    const db = openDatabase(path);
    ingest(db, body(suiteRun()), { now: NOW });
    db.close();
    const ro = openDatabase(path, { readonly: true });
    expect(() => ingest(ro, body(variant(1)), { now: NOW })).toThrow(/readonly/);
    ro.close();
    const empty = tempPath();
    new Database(empty).close();
    expect(() => openDatabase(empty, { readonly: true })).toThrow(/open it read-write once/);
  });
});
