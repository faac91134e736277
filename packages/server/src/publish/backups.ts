import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type BenchDb, copyDatabase } from '@redis-benchdb/db';

export interface BackupOptions {
  /** Where the copies go: `benchdb-<time>.sqlite` each. */
  dir: string;
  /** Between two backups; the first is taken one interval after the start. */
  intervalMs: number;
  /** The newest this many are kept, the older ones deleted. */
  keep: number;
  log: (line: string) => void;
}

/**
 * What /api/v1/health says of the backups. Health is public: a file's name, not its directory, and a
 * failure's error code, not its message (which names paths); the operator's log has both.
 */
export interface BackupStatus {
  lastBackupAt: string | null;
  /** The newest backup's file name in the backup directory (`benchdb-<time>.sqlite`). */
  lastBackupFile: string | null;
  /** When the last attempt failed, until one succeeds. */
  lastFailureAt: string | null;
  /** `the backup failed (ENOSPC)`: the error's code, when it has one. */
  lastFailure: string | null;
}

/**
 * An online copy of the database with SQLite's backup API (better-sqlite3's `db.backup()`): it copies
 * pages in steps between which the service keeps writing, and restarts a step that a write changed, so
 * the copy is one consistent state of the database, as of when it finished. Written to a temporary
 * name and renamed, so a file under the final name is always a whole backup.
 */
export async function backupDatabase(db: BenchDb, path: string, pagesPerStep = 100): Promise<void> {
  const partial = `${path}.partial`;
  await rm(partial, { force: true });
  // Between steps the event loop runs: submissions keep being answered while a large file is copied.
  await copyDatabase(db, partial, pagesPerStep);
  await rename(partial, path);
}

/** Takes a backup every interval, one at a time, and keeps the newest `keep`. */
export class BackupSchedule {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private last: BackupStatus = {
    lastBackupAt: null,
    lastBackupFile: null,
    lastFailureAt: null,
    lastFailure: null,
  };

  constructor(
    private readonly db: BenchDb,
    private readonly o: BackupOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.backupNow().then(() => {
        this.running = null;
      });
    }, this.o.intervalMs);
    this.timer.unref();
  }

  status(): BackupStatus {
    return { ...this.last };
  }

  /** Take one now; resolves with its path, or null when it failed (status() says why). */
  async backupNow(pagesPerStep?: number): Promise<string | null> {
    const at = new Date();
    const path = join(this.o.dir, `benchdb-${at.toISOString().replace(/[:.]/g, '-')}.sqlite`);
    try {
      await mkdir(this.o.dir, { recursive: true });
      await backupDatabase(this.db, path, pagesPerStep);
      this.last = {
        lastBackupAt: at.toISOString(),
        lastBackupFile: basename(path),
        lastFailureAt: null,
        lastFailure: null,
      };
      this.o.log(`backup: ${path}`);
      const names = (await readdir(this.o.dir)).filter((n) => /^benchdb-.*\.sqlite$/.test(n)).sort();
      // A backup opened since (to check or restore from it) has WAL companions: they go with it.
      for (const old of names.slice(0, Math.max(0, names.length - this.o.keep)))
        for (const suffix of ['', '-wal', '-shm']) await rm(join(this.o.dir, old + suffix), { force: true });
      return path;
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      this.last = {
        ...this.last,
        lastFailureAt: new Date().toISOString(),
        lastFailure: `the backup failed${typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? ` (${code})` : ''}`,
      };
      this.o.log(`backup to ${path} failed: ${(e as Error).message}`);
      return null;
    }
  }

  /** Stop the schedule; a backup under way finishes first (the database closes after). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
