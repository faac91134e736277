import type Database from 'better-sqlite3';
import { type CheckedSubmission, checkSubmission, type IngestOptions } from './check-submission.js';
import { resultPagePath } from './content-id.js';
import { findCopy } from './copies.js';
import type { MeasurementRow } from './measurements.js';
import type { BenchDb } from './open.js';
import type { CellRow, ResultRow, WarningRow } from './rows.js';

export interface IngestOutcome {
  /** The content id: hex SHA-256 of the signed payload. */
  id: string;
  /** The same result was stored before; nothing was written. */
  duplicate: boolean;
  /** Where the site shows it: `/results/<id>/`. */
  pagePath: string;
  /**
   * Present when the result repeats the measurements of an earlier one of the same key: that
   * result's id. It is stored, marked as a copy, and never counted twice (copies.ts).
   */
  copyOf?: string;
}

/**
 * Store one signed envelope (`redis-benchdb/envelope.v1`), given as the bytes received, in its
 * canonical form (RFC 8785): the id, the hash of the signed payload, does not change. The one way
 * signed results enter the database: the server, `db:build` and tests all come through here (the
 * server as its two halves, checkSubmission on worker threads and storeSubmission on its own), so the
 * checks cannot differ between them. Throws IngestError, with nothing written, when refused.
 */
export function ingest(db: BenchDb, body: string | Uint8Array, opts: IngestOptions = {}): IngestOutcome {
  return storeSubmission(db, checkSubmission(body, opts));
}

/**
 * Write a submission checkSubmission passed, in one transaction (a savepoint inside a caller's).
 * A result already stored (same payload) is a no-op answering `duplicate: true`, even if it was
 * retracted: the envelope is public, and replaying it must not undo its owner's retraction.
 */
export function storeSubmission(db: BenchDb, s: CheckedSubmission): IngestOutcome {
  const written = writer(db).immediate(s.row, s.cells, s.warnings, s.measurements);
  const out: IngestOutcome = { id: s.id, duplicate: !written.stored, pagePath: resultPagePath(s.id) };
  if (written.copyOf) out.copyOf = written.copyOf;
  return out;
}

type Writer = (
  row: ResultRow,
  cells: CellRow[],
  warnings: WarningRow[],
  measurements: MeasurementRow[],
) => { stored: boolean; copyOf: string | null };
const writers = new WeakMap<BenchDb, Database.Transaction<Writer>>();

/**
 * One transaction per submission: a result is stored with all its cells or not at all. Built once per
 * database. ON CONFLICT DO NOTHING, not a SELECT first: two processes racing with the same file
 * both succeed, one of them as the duplicate. The copy check (copies.ts) runs inside it, so two
 * copies racing cannot both pass; its refusal rolls the result back.
 */
function writer(db: BenchDb): Database.Transaction<Writer> {
  let w = writers.get(db);
  if (!w) {
    const st = db.statements;
    w = db.sqlite.transaction((row, cells, warnings, measurements) => {
      // Stored before: answered as it was then, copy or not.
      if (st.insertResult.run(row).changes === 0)
        return { stored: false, copyOf: st.copyOf.get(row.id)?.copy_of ?? null };
      const { copy, repeated } = findCopy(db, row.id, row.key_fingerprint, measurements);
      for (const c of cells) st.insertCell.run(c);
      for (const x of warnings) st.insertWarning.run(x);
      for (const m of measurements)
        st.insertMeasurement.run(repeated.has(m.idx) ? { ...m, histogram_sha256: null } : m);
      if (copy) st.insertCopy.run(copy);
      return { stored: true, copyOf: copy?.copy_of ?? null };
    }) as Database.Transaction<Writer>;
    writers.set(db, w);
  }
  return w;
}
