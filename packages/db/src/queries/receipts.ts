import type { BenchDb } from '../database/open.js';

// When each result came in and whether it was retracted: small columns, read from the rows (or a
// covering index) without touching their megabytes of envelopes.

export interface Receipt {
  receivedAt: string;
  retractedAt: string | null;
}

const receiptStatements = new WeakMap<BenchDb, (id: string) => Receipt | undefined>();

/** When result `id` was received, and retracted if it was; undefined for an unknown id. */
export function resultReceipt(db: BenchDb, id: string): Receipt | undefined {
  let read = receiptStatements.get(db);
  if (!read) {
    const st = db.sqlite.prepare<[string], Receipt>(
      'SELECT received_at AS receivedAt, retracted_at AS retractedAt FROM results WHERE id = ?',
    );
    read = (resultId) => st.get(resultId);
    receiptStatements.set(db, read);
  }
  return read(id);
}

/** Every result's receipt as `[receivedAt, id, retractedAt]`, oldest first (ties by id). */
export function iterateReceipts(db: BenchDb): IterableIterator<[string, string, string | null]> {
  return db.sqlite
    .prepare<[], [string, string, string | null]>(
      'SELECT received_at, id, retracted_at FROM results ORDER BY received_at, id',
    )
    .raw()
    .iterate() as IterableIterator<[string, string, string | null]>;
}

/** Results listed: stored and not retracted. */
export function listedResultCount(db: BenchDb): number {
  return db.sqlite
    .prepare<[], number>('SELECT count(*) FROM results WHERE retracted_at IS NULL')
    .pluck()
    .get()!;
}

/** The signing keys that have a result stored (retracted or not). */
export function keysWithResults(db: BenchDb): string[] {
  return db.sqlite
    .prepare<[], string>('SELECT DISTINCT key_fingerprint FROM results WHERE key_fingerprint IS NOT NULL')
    .pluck()
    .all();
}
