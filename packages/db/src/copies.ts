import { IngestError } from './ingest-error.js';
import type { MeasurementRow } from './measurements.js';
import type { BenchDb } from './open.js';

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
}

/**
 * Does this result repeat the measurements of one already stored (a cell's histogram, byte for byte:
 * see measurements.ts)? Under another key, it is refused: DUPLICATE_MEASUREMENTS, 409, naming the
 * result it repeats. Those measurements belong to whoever sent them first, and a copy under a new key
 * would count as a second, independent run: a second key behind a headline, a second sample of an
 * environment's noise (one of spread 0). Under the same key it is stored and marked as a copy (the
 * row returned), since it takes nothing from anyone, and is never counted twice. A result its own
 * key retracted does not count: its owner may submit the same measurements again, re-labelled.
 */
export function findCopy(
  db: BenchDb,
  id: string,
  keyFingerprint: string,
  rows: readonly MeasurementRow[],
): CopyCheck {
  let copy: CopyRow | null = null;
  const repeated = new Set<number>();
  for (const row of rows) {
    if (row.histogram_sha256 === null) continue;
    const earlier = db.statements.sameHistogram.get(row.histogram_sha256, id);
    if (!earlier) continue;
    repeated.add(row.idx);
    if (earlier.keyFingerprint !== keyFingerprint)
      throw new IngestError(
        'DUPLICATE_MEASUREMENTS',
        409,
        `duplicate measurements: cell ${JSON.stringify(row.label)} has the very latency histogram of result ${earlier.id} (received ${earlier.receivedAt.slice(0, 10)}), signed by another key. A result must carry what its own run measured: submit the result of your own \`redis-benchdb run\``,
      );
    if (earlier.retractedAt === null) copy ??= { result_id: id, copy_of: earlier.id, cell_label: row.label };
  }
  return { copy, repeated };
}
