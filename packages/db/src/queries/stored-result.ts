import type { BenchDb } from '../database/open.js';
import { readDocument, readEnvelope } from '../store/envelopes.js';

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

/** One result by id, signed or imported; null for an unknown id. A retracted one is returned with its time. */
export function getStoredResult(db: BenchDb, id: string): StoredResult | null {
  const key = db.statements.resultKey.get(id);
  if (!key) return null;
  const json = key.kind === 'signed' ? readEnvelope(db, id) : readDocument(db, id);
  return json === null ? null : { kind: key.kind, json, retractedAt: key.retracted_at };
}
