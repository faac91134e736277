import type { BenchDb } from '../database/open.js';

/** A result as stored, whichever its kind: what `GET /api/v1/results/:id` serves. */
export interface StoredResult {
  kind: 'signed' | 'imported';
  /**
   * A signed result's envelope as verified (canonical JSON: `redis-benchdb verify` checks it), or an
   * imported result's imported.v1 document (canonical JSON, its source named inside).
   */
  json: string;
  /** When its owner retracted it, or null. */
  retractedAt: string | null;
}

// The CASE reads one of the two large columns, never both: a signed row's document would double the
// bytes read, and an imported row has no envelope.
const SQL = `SELECT kind, CASE kind WHEN 'signed' THEN envelope ELSE document END AS json,
                    retracted_at AS retractedAt
               FROM results WHERE id = ?`;

const prepared = new WeakMap<BenchDb, ReturnType<typeof prepare>>();
function prepare(db: BenchDb) {
  return db.sqlite.prepare<[string], StoredResult>(SQL);
}

/** One result by id, signed or imported; null for an unknown id. A retracted one is returned with its time. */
export function getStoredResult(db: BenchDb, id: string): StoredResult | null {
  let st = prepared.get(db);
  if (!st) {
    st = prepare(db);
    prepared.set(db, st);
  }
  return st.get(id) ?? null;
}
