import type { BenchDb } from '../database/open.js';
import { type IngestOutcome, storeSubmission } from './ingest.js';

type Checked = Parameters<typeof storeSubmission>[1];

/** One submission's outcome in a batch: stored, or the error that refused it alone. */
export type BatchOutcome = IngestOutcome | Error;

/**
 * Stores checked submissions together, in one IMMEDIATE transaction: each one's own transaction
 * becomes a savepoint, and one commit (one fsync of the WAL at synchronous=FULL) covers the batch.
 * IMMEDIATE takes the write lock up front, as ingest does, so that a `db:build` writing the same file
 * cannot make it fail half-way with SQLITE_BUSY.
 *
 * The returned function pushes each submission's outcome onto `settled` as it goes, and throws when
 * the transaction as a whole failed: then nothing of the batch is stored, whatever `settled` holds.
 */
export function groupCommit(db: BenchDb): (batch: readonly Checked[], settled: BatchOutcome[]) => void {
  const commit = db.sqlite.transaction((batch: readonly Checked[], settled: BatchOutcome[]) => {
    for (const submission of batch) {
      try {
        settled.push(storeSubmission(db, submission));
      } catch (e) {
        // SQLite ends the whole transaction on some errors (disk full, I/O): the earlier submissions
        // of the batch are then gone too, so fail them all rather than answer 201.
        if (!db.sqlite.inTransaction) throw e;
        settled.push(e instanceof Error ? e : new Error(String(e)));
      }
    }
  });
  return (batch, settled) => commit.immediate(batch, settled);
}
