import { checkEnvelopeSignature, contentId } from '@redis-benchdb/result';
import Database from 'better-sqlite3';
import { applyMigrations, MIGRATIONS, schemaVersion } from '../migrations/migrate.js';
import { readDocument, readEnvelope } from '../store/envelopes.js';
import { RestoreError } from './restore-error.js';

interface SchemaObject {
  type: string;
  name: string;
  sql: string | null;
}

/** SQLite's own tables (sqlite_sequence, sqlite_stat1, ...): made by SQLite, not by a migration. */
const SQLITE_OWN = /^sqlite_/;

const objects = (sqlite: Database.Database): Map<string, SchemaObject> =>
  new Map(
    sqlite
      .prepare<[], SchemaObject>('SELECT type, name, sql FROM sqlite_schema ORDER BY type, name')
      .all()
      .filter((o) => !SQLITE_OWN.test(o.name))
      .map((o) => [`${o.type} ${o.name}`, o]),
  );

/**
 * The backup's schema is exactly what this code's migrations make at its version: no table, index,
 * view or trigger more, none less, none changed. integrity_check passes a database whose trigger
 * deletes rows on the next insert (issue 30 item 10: it deleted 1,497 of 1,498 results) or whose
 * table was dropped; neither is a backup the service wrote.
 */
export function checkBackupSchema(backup: Database.Database, path: string): void {
  const version = schemaVersion(backup);
  if (version > MIGRATIONS.length) return; // openDatabase says it is too new, naming both versions.
  const reference = new Database(':memory:');
  try {
    applyMigrations(reference, MIGRATIONS.slice(0, version));
    const want = objects(reference);
    const have = objects(backup);
    const extra = [...have.keys()].filter((k) => !want.has(k));
    const missing = [...want.keys()].filter((k) => !have.has(k));
    const changed = [...want.keys()].filter((k) => have.has(k) && have.get(k)!.sql !== want.get(k)!.sql);
    if (extra.length + missing.length + changed.length === 0) return;
    const say = (what: string, list: string[]) => (list.length > 0 ? [`${what} ${list.join(', ')}`] : []);
    throw new RestoreError(
      'BACKUP_SCHEMA',
      `${path} is not a database this service wrote: its schema (version ${version}) has ${[
        ...say('an extra', extra),
        ...say('no', missing),
        ...say('a changed', changed),
      ].join('; ')}. A backup from --backup-dir has none of these: restore one of those, or an older one`,
    );
  } finally {
    reference.close();
  }
}

/**
 * Every stored result is what ingest stored: a signed one's envelope is JSON, its signature holds,
 * its id is its payload's hash and its document the payload; an imported one's document is JSON.
 * The service serves these as they are, so a backup with a row that is not one of them is refused,
 * naming the first such row.
 */
export function checkBackupRows(backup: Database.Database, path: string): void {
  const rows = backup.prepare<[], { id: string; kind: string }>('SELECT id, kind FROM results').iterate();
  for (const row of rows) {
    const problem = rowProblem(backup, row);
    if (problem !== null)
      throw new RestoreError(
        'BACKUP_CORRUPT',
        `${path}: result ${row.id.slice(0, 80)} ${problem}, which ingest never stores: restore an older backup`,
      );
  }
}

function rowProblem(backup: Database.Database, row: { id: string; kind: string }): string | null {
  if (row.kind === 'imported') {
    try {
      JSON.parse(readDocument({ sqlite: backup }, row.id) ?? '');
      return null;
    } catch {
      return 'has a document that is not JSON';
    }
  }
  let text: string | null;
  try {
    text = readEnvelope({ sqlite: backup }, row.id);
  } catch (e) {
    return `has a stored envelope that cannot be read (${(e as Error).message})`;
  }
  let envelope: unknown;
  try {
    envelope = JSON.parse(text ?? '');
  } catch {
    return 'has an envelope that is not JSON';
  }
  const check = checkEnvelopeSignature((envelope ?? {}) as Record<string, unknown>);
  if (!check.ok) return `has an envelope that does not verify (${check.reason})`;
  // Its document is its payload by construction (store/envelopes.ts reads it out of the envelope).
  if (contentId(check.payload) !== row.id) return "is stored under an id that is not its payload's hash";
  return null;
}
