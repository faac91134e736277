import type { BenchDb } from './open.js';

/**
 * An online copy of the database into `path` with SQLite's backup API: it copies `pagesPerStep` pages a
 * step, between which the event loop runs (and the service keeps writing), and restarts a step that a
 * write changed, so the copy is one consistent state of the database, as of when it finished.
 */
export async function copyDatabase(db: BenchDb, path: string, pagesPerStep: number): Promise<void> {
  await db.sqlite.backup(path, { progress: () => pagesPerStep });
}

/**
 * Runs `read` inside one read transaction, so that every query it makes (and a copyDatabase) sees the
 * same database while another connection keeps storing results; committed whatever `read` does.
 */
export async function inReadTransaction<T>(db: BenchDb, read: () => Promise<T>): Promise<T> {
  db.sqlite.prepare('BEGIN').run();
  try {
    return await read();
  } finally {
    if (db.sqlite.inTransaction) db.sqlite.prepare('COMMIT').run();
  }
}
