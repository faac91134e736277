import type { BenchDb } from '../database/open.js';
import type { ListRow } from '../database/statements.js';
import { iterateListedRecords, readEnvelope } from '../store/envelopes.js';

export interface StoredEnvelope {
  /** The envelope as ingest verified it: its canonical JSON (RFC 8785), one of each key. */
  envelope: string;
  /** When its owner retracted it, or null: a retracted result is kept but must not be listed. */
  retractedAt: string | null;
}

/**
 * The signed envelope of a result, as verified: anyone can re-verify it with `redis-benchdb verify`.
 * Null for an unknown id and for an imported result (which has no envelope). A retracted result is
 * returned with its `retractedAt`: whether to still serve it is the caller's choice.
 */
export function getEnvelope(db: BenchDb, id: string): StoredEnvelope | null {
  const envelope = readEnvelope(db, id);
  if (envelope === null) return null;
  return { envelope, retractedAt: db.statements.resultKey.get(id)?.retracted_at ?? null };
}

export interface ListOptions {
  /** @default 50 */
  limit?: number;
  /** @default 0 */
  offset?: number;
  /** @default false */
  includeRetracted?: boolean;
}

export const DEFAULT_LIST_OPTIONS: Required<ListOptions> = { limit: 50, offset: 0, includeRetracted: false };

/** A page asks for one page: more than this is a mistake, and would read every row. */
export const MAX_LIST_LIMIT = 1000;

export type ResultSummary = Omit<ListRow, 'warningCodes'> & { warningCodes: string[] };

/** Results, newest received first. */
export function listResults(db: BenchDb, opts: ListOptions = {}): ResultSummary[] {
  const o = { ...DEFAULT_LIST_OPTIONS, ...opts };
  if (!Number.isInteger(o.limit) || o.limit < 0 || o.limit > MAX_LIST_LIMIT)
    throw new RangeError(`invalid limit: ${o.limit} (an integer from 0 to ${MAX_LIST_LIMIT})`);
  if (!Number.isInteger(o.offset) || o.offset < 0) throw new RangeError(`invalid offset: ${o.offset}`);
  return db.statements.listResults
    .all({ limit: o.limit, offset: o.offset, includeRetracted: o.includeRetracted ? 1 : 0 })
    .map(summary);
}

/**
 * The members of a run group (results signed by one `redis-benchdb run` with several servers,
 * transports or variants), in the order they ran; retracted members are left out. Empty for an
 * unknown id. The site shows them side by side.
 */
export function listRunGroup(db: BenchDb, groupId: string): ResultSummary[] {
  return db.statements.listRunGroup.all(groupId).map(summary);
}

function summary(r: ListRow): ResultSummary {
  return { ...r, warningCodes: r.warningCodes ? r.warningCodes.split(',') : [] };
}

export interface Counts {
  /** Every result row, retracted included. */
  results: number;
  retracted: number;
  cells: number;
  warnings: number;
}

export function count(db: BenchDb): Counts {
  return db.statements.count.get()!;
}

/** PRAGMA integrity_check: `['ok']` for a sound file, else SQLite's list of problems. */
export function integrityCheck(db: BenchDb): string[] {
  return (db.sqlite.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
}

export interface ExportedResult {
  id: string;
  kind: 'signed' | 'imported';
  /** Signed results: the envelope as stored, so anyone can verify it. */
  envelope?: unknown;
  /** Imported results: the imported.v1 document. */
  document?: unknown;
}

/** What open data exports of each listed result, oldest first: shared by both export paths. */
export const exportRows = iterateListedRecords;

/** Every listed (not retracted) result, oldest first, for open data: `redis-benchdb export --jsonl`. */
export function* exportResults(db: BenchDb): Generator<ExportedResult> {
  for (const r of exportRows(db)) {
    // Parsing and re-serialising the envelope keeps its payload string byte for byte: it still verifies.
    yield r.kind === 'signed'
      ? { id: r.id, kind: r.kind, envelope: JSON.parse(r.text) }
      : { id: r.id, kind: r.kind, document: JSON.parse(r.text) };
  }
}
