import { createHash } from 'node:crypto';
import type { BenchDb } from '../database/open.js';
import { schemaVersionOf } from '../database/state.js';
import { iterateReceipts } from './receipts.js';
import { exportJsonlLines } from './site.js';

/**
 * The open data in parts (issue 42): one JSON Lines file per month of receipt, so a new result
 * rewrites only its month's part, and a retraction only the part that listed it. A stored result
 * never changes, so a part is known by what it lists: its fingerprint (the line format, and each
 * listed result's receipt and id) names it in the publisher's cache, and an equal one is reused.
 */
export interface OpenDataPart {
  /** The month of receipt, `YYYY-MM` (UTC). */
  month: string;
  /** `results-YYYY-MM.jsonl`. */
  file: string;
  /** Listed results in it (retracted ones are left out). */
  results: number;
  /** Hex SHA-256 of what it lists: equal fingerprints, equal files. */
  fingerprint: string;
}

/** The index file beside the parts; each part there also carries its bytes and its SHA-256. */
export const OPEN_DATA_INDEX = 'results-parts.json';
export const OPEN_DATA_INDEX_SCHEMA = 'redis-benchdb/open-data-parts.v1';
// Raised when a line's format changes (exportJsonlLines): every part is then written again.
const LINE_FORMAT = 1;
const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The parts of the listed results, oldest month first; read from a covering index, no envelope. */
export function openDataParts(db: BenchDb): OpenDataPart[] {
  const rows = db.sqlite
    .prepare<[], [string, string]>(
      'SELECT received_at, id FROM results WHERE retracted_at IS NULL ORDER BY received_at, id',
    )
    .raw()
    .iterate();
  const parts: OpenDataPart[] = [];
  const hashes: ReturnType<typeof createHash>[] = [];
  for (const [receivedAt, id] of rows) {
    const month = receivedAt.slice(0, 7);
    if (parts.at(-1)?.month !== month) {
      parts.push({ month, file: `results-${month}.jsonl`, results: 0, fingerprint: '' });
      hashes.push(createHash('sha256').update(`format ${LINE_FORMAT}\n`));
    }
    parts.at(-1)!.results++;
    hashes.at(-1)!.update(`${receivedAt} ${id}\n`);
  }
  parts.forEach((p, i) => {
    p.fingerprint = hashes[i]!.digest('hex');
  });
  return parts;
}

/** One part's lines: the listed results received in `month` (`YYYY-MM`), as exportJsonlLines writes them. */
export function exportJsonlPart(db: BenchDb, month: string): Generator<string> {
  const m = MONTH.exec(month);
  if (!m) throw new RangeError(`invalid month: ${JSON.stringify(month)} (YYYY-MM, e.g. 2026-11)`);
  const [year, mon] = [Number(m[1]), Number(m[2])];
  const next = mon === 12 ? `${year + 1}-01` : `${year}-${String(mon + 1).padStart(2, '0')}`;
  return exportJsonlLines(db, { from: month, to: next });
}

/**
 * What the database holds, as one hash: the schema version and every result's receipt, id and
 * retraction (a stored result never changes). Names the SQLite snapshot in the publisher's cache.
 */
export function databaseFingerprint(db: BenchDb): string {
  const h = createHash('sha256');
  // The migrations' version (schema_migrations): SQLite's user_version is never set, so hashing it
  // let a migration keep an old snapshot.
  h.update(`schema ${schemaVersionOf(db)}\n`);
  for (const [at, id, retracted] of iterateReceipts(db)) h.update(`${at} ${id} ${retracted ?? ''}\n`);
  return h.digest('hex');
}
