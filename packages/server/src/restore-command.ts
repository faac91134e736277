import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { defineCommand, text } from '@redis-benchdb/command';
import { RestoreError, restoreDatabase, SchemaVersionError } from '@redis-benchdb/db';
import { UsageError } from './usage-error.js';

const DESCRIPTION = `Puts BACKUP (a file from --backup-dir, or the directory itself for its newest backup) in place of the database PATH, for a service that is stopped. BACKUP must pass SQLite's PRAGMA integrity_check first; it is copied with SQLite's backup API, migrated to this version's schema and checked again before anything is replaced. The database it replaces is kept beside it as PATH.before-restore-<time>. Refused while another process (a running service, or a site build of it) has PATH open. Start the service again afterwards: it serves the restored results, and rebuilds its site from them.`;

const EXAMPLE = `
Example, from the repository's root (the container's WORKDIR; docs/DEPLOY.md, "Restoring a backup"):
  node packages/server/dist/main.js restore /srv/benchdb/backups --db /srv/benchdb/benchdb.sqlite`;

/** `redis-benchdb-server restore BACKUP --db PATH`: its help, and a run() that gives the exit code. */
export const restoreCommand = defineCommand({
  name: 'restore',
  summary: 'put a backup in place of the database, for a stopped service',
  description: DESCRIPTION,
  usage: 'BACKUP --db PATH',
  argument: {
    usage: '[backup]',
    help: 'a backup file from --backup-dir, or that directory for its newest backup',
  },
  options: {
    db: text('--db <path>', "the database to replace: the service's --db (it need not exist); no default"),
  },
  helpAfter: EXAMPLE,
  async run(flags, backup) {
    if (backup === undefined) throw new UsageError('restore needs the backup file to restore from');
    // No default: replacing a database is done to the one named, not to a default that may be another.
    if (flags.db === undefined)
      throw new UsageError("restore needs --db PATH: the database to replace (the service's --db)");
    return restore(resolve(backup), resolve(flags.db));
  },
});

/** Restores and says what happened: 0, or 1 with what was (not) changed. */
async function restore(backup: string, dbPath: string): Promise<number> {
  const from = newestBackup(backup);
  if (from === null) {
    process.stderr.write(
      `redis-benchdb-server restore: no backup (benchdb-*.sqlite) in ${backup}\nnothing was changed\n`,
    );
    return 1;
  }
  try {
    const r = await restoreDatabase(from, dbPath);
    process.stdout.write(
      `restored ${dbPath} from ${from}: ${r.results} results (${r.retracted} retracted), integrity_check ok\n` +
        (r.replacedBy
          ? `the database it replaced is kept as ${r.replacedBy}; delete it (and any -wal, -shm beside it) once the service runs well\n`
          : '') +
        'start the service again as before: it serves the restored results and rebuilds its site from them\n',
    );
    return 0;
  } catch (e) {
    // Refused before anything was touched; anything else (a rename that failed) is said as it is.
    const refused = e instanceof RestoreError || e instanceof SchemaVersionError;
    process.stderr.write(
      `redis-benchdb-server restore: ${(e as Error).message}\n${refused ? 'nothing was changed' : `check ${dirname(dbPath)}: the database may have been moved aside (${basename(dbPath)}.before-restore-*)`}\n`,
    );
    return 1;
  }
}

/** A directory (--backup-dir) stands for its newest backup: BackupSchedule's names sort by time. */
function newestBackup(path: string): string | null {
  const isDir = (() => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false; // restoreDatabase says that the file is missing.
    }
  })();
  if (!isDir) return path;
  const names = readdirSync(path)
    .filter((n) => /^benchdb-.*\.sqlite$/.test(n))
    .sort();
  return names.length === 0 ? null : join(path, names.at(-1)!);
}
