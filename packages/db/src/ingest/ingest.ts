import type Database from 'better-sqlite3';
import type { BenchDb } from '../database/open.js';
import { type CheckedSubmission, checkSubmission, type IngestOptions } from './check-submission.js';
import { resultPagePath } from './content-id.js';
import { findCopy } from './copies.js';
import { recordDispute } from './disputes.js';
import { IngestError } from './ingest-error.js';
import type { MeasurementRow } from './measurements.js';
import { refuseRevokedKey } from './revoked-key.js';
import type { CellRow, ResultRow, WarningRow } from './rows.js';
import { checkRunGroup, type RunGroupClaim } from './run-group.js';

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
  /**
   * Present when an earlier result of another key holds some of its measurements: those results.
   * This one and each of them are disputed (disputes.ts): stored, shown, and in no rank.
   */
  disputedWith?: string[];
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
 * retracted: the envelope is public, and replaying it must not undo its owner's retraction. The same
 * payload signed by another key (possible only for results that bind no key) is not its result: the
 * claim is recorded, the result becomes disputed, and DISPUTED (409) is thrown once that is committed.
 */
export function storeSubmission(db: BenchDb, s: CheckedSubmission): IngestOutcome {
  const written = writer(db).immediate(
    s.row,
    envelopeRow(s),
    s.cells,
    s.warnings,
    s.measurements,
    runGroupClaim(s),
  );
  if (written.claimedBy !== null)
    throw new IngestError(
      'DISPUTED',
      409,
      `disputed: result ${s.id} was stored before, signed by the key ${written.claimedBy}; this copy is signed by ${s.row.key_fingerprint}. The result binds no key (it was signed before 2026-11-28), so nothing says which key measured it: it is not given to this one, both claims are recorded, and it is now out of every rank and cannot be retracted by either key. The operator can settle it (docs/DEPLOY.md, "Who owns a result")`,
    );
  const out: IngestOutcome = { id: s.id, duplicate: !written.stored, pagePath: resultPagePath(s.id) };
  if (written.copyOf) out.copyOf = written.copyOf;
  if (written.disputedWith.length > 0) out.disputedWith = written.disputedWith;
  return out;
}

/** The stored envelope's row; bytes that crossed from a worker thread become Buffers again. */
function envelopeRow(s: CheckedSubmission) {
  const bytes = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  return { result_id: s.id, histograms: bytes(s.envelope.histograms), body: bytes(s.envelope.body) };
}

function runGroupClaim(s: CheckedSubmission): RunGroupClaim | null {
  const { run_group_id: id, run_group_index: index } = s.row;
  return id === null || index === null || s.runGroupSize === null
    ? null
    : { id, index, size: s.runGroupSize };
}

interface Written {
  stored: boolean;
  copyOf: string | null;
  disputedWith: string[];
  /** The key the stored row was signed by, when another key sent the very same payload. */
  claimedBy: string | null;
}
type Writer = (
  row: ResultRow,
  envelope: ReturnType<typeof envelopeRow>,
  cells: CellRow[],
  warnings: WarningRow[],
  measurements: MeasurementRow[],
  group: RunGroupClaim | null,
) => Written;
const writers = new WeakMap<BenchDb, Database.Transaction<Writer>>();

/**
 * One transaction per submission: a result is stored with all its cells or not at all. Built once per
 * database. ON CONFLICT DO NOTHING, not a SELECT first: two processes racing with the same file
 * both succeed, one of them as the duplicate. The copy check (copies.ts) runs inside it, so two
 * copies racing cannot both pass unseen: the later one finds the earlier and both are disputed.
 */
function writer(db: BenchDb): Database.Transaction<Writer> {
  let w = writers.get(db);
  if (!w) {
    const st = db.statements;
    w = db.sqlite.transaction((row, envelope, cells, warnings, measurements, group): Written => {
      refuseRevokedKey(db, row.key_fingerprint);
      // A new result only: one stored before is answered below as it was then (duplicate or dispute).
      if (group && !st.resultKey.get(row.id)) checkRunGroup(db, row.id, row.key_fingerprint ?? '', group);
      // Stored before: answered as it was then, copy or not, unless another key sent it.
      if (st.insertResult.run(row).changes === 0) {
        const held = st.resultKey.get(row.id);
        if (held?.kind === 'signed' && held.key_fingerprint !== row.key_fingerprint && row.key_fingerprint) {
          recordDispute(db, row.id, row.key_fingerprint, row.id, row.received_at);
          return { stored: false, copyOf: null, disputedWith: [], claimedBy: held.key_fingerprint };
        }
        return {
          stored: false,
          copyOf: st.copyOf.get(row.id)?.copy_of ?? null,
          disputedWith: [],
          claimedBy: null,
        };
      }
      st.insertEnvelope.run(envelope);
      const { copy, repeated, disputes } = findCopy(db, row.id, row.key_fingerprint ?? '', measurements);
      for (const c of cells) st.insertCell.run(c);
      for (const x of warnings) st.insertWarning.run(x);
      for (const m of measurements)
        st.insertMeasurement.run(repeated.has(m.idx) ? { ...m, histogram_sha256: null } : m);
      if (copy) st.insertCopy.run(copy);
      for (const d of disputes) {
        recordDispute(db, row.id, d.keyFingerprint, d.id, row.received_at);
        recordDispute(db, d.id, row.key_fingerprint ?? '', row.id, row.received_at);
      }
      return {
        stored: true,
        copyOf: copy?.copy_of ?? null,
        disputedWith: disputes.map((d) => d.id),
        claimedBy: null,
      };
    }) as Database.Transaction<Writer>;
    writers.set(db, w);
  }
  return w;
}
