import type { BenchDb } from '../database/open.js';
import type { MeasurementRow } from './measurements.js';

/** A result stored as the copy of an earlier one (result_copies). */
export interface CopyRow {
  result_id: string;
  copy_of: string;
  cell_label: string;
}

export interface CopyCheck {
  /** The copy to record, or null. */
  copy: CopyRow | null;
  /**
   * The cells whose histogram an earlier result holds. Their digest is not stored again: the earlier
   * row answers for both, so each digest sits in the index once and a lookup stays one row however
   * often a key resubmits the same measurements.
   */
  repeated: Set<number>;
  /** Earlier results of other keys that hold some of these measurements: each is disputed with this one. */
  disputes: { id: string; keyFingerprint: string }[];
}

/**
 * Does this result repeat the measurements of one already stored (a cell's histogram, byte for byte:
 * see measurements.ts)? Under another key, both results are disputed (disputes.ts): a copy re-bound
 * to a new key, sent first or last, must neither count as a second, independent run nor take the
 * measurements from the key that made them, and nothing here says which key that is. Retracted or
 * not, the earlier result counts: its owner retracting it must not free its measurements for a
 * copier. Under the same key it is stored and marked as a copy (the row returned), since it takes
 * nothing from anyone, and is never counted twice; a result its own key retracted does not count
 * there: its owner may submit the same measurements again, re-labelled.
 */
export function findCopy(
  db: BenchDb,
  id: string,
  keyFingerprint: string,
  rows: readonly MeasurementRow[],
): CopyCheck {
  let copy: CopyRow | null = null;
  const repeated = new Set<number>();
  const disputes = new Map<string, string>();
  for (const row of rows) {
    if (row.histogram_sha256 === null) continue;
    const earlier = db.statements.sameHistogram.get(row.histogram_sha256, id);
    if (!earlier) continue;
    repeated.add(row.idx);
    if (earlier.keyFingerprint !== keyFingerprint) disputes.set(earlier.id, earlier.keyFingerprint ?? '');
    else if (earlier.retractedAt === null)
      copy ??= { result_id: id, copy_of: earlier.id, cell_label: row.label };
  }
  return { copy, repeated, disputes: [...disputes].map(([id, keyFingerprint]) => ({ id, keyFingerprint })) };
}
