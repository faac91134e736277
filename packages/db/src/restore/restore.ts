import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../database/open.js';
import { schemaVersion } from '../migrations/migrate.js';
import { count } from '../queries/results.js';
import { checkBackupRows, checkBackupSchema } from './restore-checks.js';
import { RestoreError } from './restore-error.js';

export interface RestoreOutcome {
  /** What the restored database holds. */
  results: number;
  retracted: number;
  /** Where the database it replaced was moved, or null when there was none. */
  replacedBy: string | null;
}

/**
 * Put a backup (one BackupSchedule wrote, or any copy of the database) in place of the database at
 * `dbPath`, for a service that is stopped. Refused, with `dbPath` untouched, when another process has
 * it open (a running service), or when the backup fails `PRAGMA integrity_check` or is not one of ours.
 * The backup is copied with SQLite's backup API (so a `-wal` beside it counts), migrated to this code's
 * schema, and checked again before it replaces anything. The database it replaces is renamed, not
 * deleted: `<dbPath>.before-restore-<time>`, with its `-wal` and `-shm`.
 */
export async function restoreDatabase(backupPath: string, dbPath: string): Promise<RestoreOutcome> {
  if (!existsSync(backupPath)) throw new RestoreError('BACKUP_MISSING', `no backup at ${backupPath}`);
  refuseIfInUse(dbPath);
  const restoring = `${dbPath}.restoring`;
  let counts: { results: number; retracted: number };
  try {
    await copyVerified(backupPath, restoring);
    // Migrated now, as the service would at its start: a backup too new for this code is refused here.
    const restored = openDatabase(restoring);
    try {
      counts = count(restored);
    } finally {
      // The last connection's close checkpoints the WAL into the file: it is whole on its own.
      restored.close();
    }
  } catch (e) {
    for (const suffix of ['', '-wal', '-shm']) await rm(restoring + suffix, { force: true });
    // Nothing was moved yet: whatever failed, the database is as it was, and the caller says so.
    if (e instanceof RestoreError || (e as Error)?.name === 'SchemaVersionError') throw e;
    throw new RestoreError(
      'BACKUP_UNREADABLE',
      `${backupPath} could not be restored: ${(e as Error).message}`,
    );
  }
  // Again, just before the swap: a service started since would keep writing to the file moved aside.
  refuseIfInUse(dbPath);
  let replacedBy: string | null = null;
  if (existsSync(dbPath)) {
    replacedBy = `${dbPath}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    for (const suffix of ['', '-wal', '-shm'])
      if (existsSync(dbPath + suffix)) await rename(dbPath + suffix, replacedBy + suffix);
  }
  await rename(`${dbPath}.restoring`, dbPath);
  return { ...counts, replacedBy };
}

/**
 * Another connection holds the database open: a running service, a site build, a `db:build`. In WAL
 * mode every open connection holds a shared lock on the file for as long as it is open, even idle, so
 * taking the exclusive lock without waiting fails exactly when one exists.
 */
function refuseIfInUse(dbPath: string): void {
  if (!existsSync(dbPath)) return;
  const probe = new Database(dbPath, { fileMustExist: true, timeout: 0 });
  try {
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.exec('BEGIN EXCLUSIVE');
    probe.exec('ROLLBACK');
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    // A database too damaged to read is one no service can be using, and the one to restore over.
    if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) return;
    if (code.startsWith('SQLITE_BUSY'))
      throw new RestoreError(
        'DATABASE_IN_USE',
        `${dbPath} is open in another process (a running redis-benchdb-server, or a site build of it): stop the service, then run the restore again`,
      );
    throw e;
  } finally {
    probe.close();
  }
}

/** Check the backup, copy it to `to` with the backup API, and check the copy. */
async function copyVerified(backupPath: string, to: string): Promise<void> {
  let source: Database.Database;
  try {
    source = new Database(backupPath, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new RestoreError('BACKUP_UNREADABLE', `cannot open ${backupPath}: ${(e as Error).message}`);
  }
  try {
    integrityOk(source, backupPath);
    if (schemaVersion(source) === 0)
      throw new RestoreError(
        'NOT_A_BENCHDB',
        `${backupPath} holds no redis-benchdb database (no schema_migrations table): give a file from --backup-dir`,
      );
    checkBackupSchema(source, backupPath);
    checkBackupRows(source, backupPath);
    await mkdir(dirname(to), { recursive: true });
    for (const suffix of ['', '-wal', '-shm']) await rm(to + suffix, { force: true });
    await source.backup(to);
  } finally {
    source.close();
  }
  const copy = new Database(to, { fileMustExist: true });
  try {
    integrityOk(copy, to);
  } finally {
    copy.close();
  }
}

function integrityOk(sqlite: Database.Database, path: string): void {
  let problems: string[];
  try {
    problems = (sqlite.pragma('integrity_check') as { integrity_check: string }[]).map(
      (r) => r.integrity_check,
    );
  } catch (e) {
    // Not SQLite at all ("file is not a database"), or damaged past what integrity_check can read.
    throw new RestoreError('BACKUP_UNREADABLE', `cannot read ${path}: ${(e as Error).message}`);
  }
  if (problems.length !== 1 || problems[0] !== 'ok')
    throw new RestoreError(
      'BACKUP_CORRUPT',
      `${path} fails PRAGMA integrity_check (${problems.length} problems; first: ${problems.slice(0, 3).join('; ')}): restore an older backup`,
    );
}
