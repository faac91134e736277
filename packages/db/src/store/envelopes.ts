import type Database from 'better-sqlite3';
import { decodeEnvelope, type EnvelopeParts } from './envelope-codec.js';

/**
 * The one read path of a stored result's record (issue 42): every reader of an envelope or a document
 * (the API, the export, the site, restore's checks, the queries that look inside a document) comes
 * here, since a signed row's `envelope` and `document` columns are empty since migration 14.
 */
type Sqlite = { sqlite: Database.Database };

interface RecordRow {
  kind: 'signed' | 'imported';
  document: string;
  histograms: Buffer | null;
  body: Buffer | null;
}

const RECORD_SQL = `SELECT r.kind, r.document, e.histograms, e.body
  FROM results r LEFT JOIN result_envelopes e ON e.result_id = r.id WHERE r.id = ?`;

const prepared = new WeakMap<Database.Database, Database.Statement<[string], RecordRow>>();
function recordOf(db: Sqlite, id: string): RecordRow | undefined {
  let st = prepared.get(db.sqlite);
  if (!st) {
    st = db.sqlite.prepare<[string], RecordRow>(RECORD_SQL);
    prepared.set(db.sqlite, st);
  }
  return st.get(id);
}

/**
 * A stored row's record as text: a signed result's envelope exactly as ingest verified it (canonical
 * JSON, what `redis-benchdb verify` checks), an imported one's imported.v1 document.
 */
export function recordText(row: RecordRow): string {
  if (row.kind === 'imported') return row.document;
  if (!row.histograms || !row.body) throw new Error('a signed result has no stored envelope');
  return decodeEnvelope({ histograms: row.histograms, body: row.body } satisfies EnvelopeParts);
}

/** A signed result's envelope, byte for byte as verified; null for an unknown id or an imported result. */
export function readEnvelope(db: Sqlite, id: string): string | null {
  const row = recordOf(db, id);
  return row?.kind === 'signed' ? recordText(row) : null;
}

/** A result's document (result.v1: the envelope's signed payload; imported.v1), or null for an unknown id. */
export function readDocument(db: Sqlite, id: string): string | null {
  const row = recordOf(db, id);
  if (!row) return null;
  return row.kind === 'signed' ? (JSON.parse(recordText(row)) as { payload: string }).payload : row.document;
}

/** Received from `from` (included) to `to` (left out), compared as text: `2026-11` to `2026-12` is November. */
export interface ReceivedRange {
  from: string;
  to: string;
}

/** Every listed result's record, oldest received first (those received in a range): the open data. */
export function* iterateListedRecords(
  db: Sqlite,
  received?: ReceivedRange,
): Generator<{ id: string; kind: 'signed' | 'imported'; receivedAt: string; text: string }> {
  const rows = db.sqlite
    .prepare<{ from: string | null; to: string | null }, RecordRow & { id: string; receivedAt: string }>(
      `SELECT r.id, r.kind, r.received_at AS receivedAt, r.document, e.histograms, e.body
         FROM results r LEFT JOIN result_envelopes e ON e.result_id = r.id
        WHERE r.retracted_at IS NULL
          AND (@from IS NULL OR (r.received_at >= @from AND r.received_at < @to))
        ORDER BY r.received_at, r.id`,
    )
    .iterate({ from: received?.from ?? null, to: received?.to ?? null });
  for (const r of rows) yield { id: r.id, kind: r.kind, receivedAt: r.receivedAt, text: recordText(r) };
}
