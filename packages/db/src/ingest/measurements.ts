import { createHash } from 'node:crypto';
import { noVerdictWarnings, type ResultV1 } from '@redis-benchdb/result';

/**
 * What the verdicts and the duplicate check need of each cell of a signed result, written at ingest
 * into cell_measurements (migration 4): small rows the site reads without touching a document.
 */

/**
 * A histogram of fewer latencies than this is not taken as the fingerprint of a run: two honest runs
 * of a handful of requests could record the same few values. Two honest histograms of a thousand
 * latencies or more, at µs resolution, that match bucket for bucket do not happen.
 */
export const MIN_DIGEST_LATENCIES = 1000;

export type MeasurementRow = ReturnType<typeof measurementRows>[number];

export function measurementRows(resultId: string, r: ResultV1) {
  return r.cells.map((c, idx) => {
    const codes = noVerdictWarnings(r.warnings, {
      label: c.label,
      unstable: c.unstable,
      clientBound: c.saturation.clientBound,
      interference: c.interference ?? null,
    });
    return {
      result_id: resultId,
      idx,
      label: c.label,
      environment_fingerprint: r.environment.fingerprint,
      workload_fingerprint: c.workloadFingerprint,
      ops_median: c.opsPerSec.median,
      // The warnings that keep it from a verdict keep it out of the noise estimates too: the band
      // is meant for the cells it judges.
      no_verdict: codes.length > 0 ? codes.join(',') : null,
      // Stored null, too, where an earlier result holds the same (copies.ts): one row per digest.
      histogram_sha256: c.latencyUs.count >= MIN_DIGEST_LATENCIES ? sha256(c.histogram) : null,
    };
  });
}

/**
 * The digest of the histogram as encoded. A copier who re-encodes or nudges a histogram escapes it,
 * as they could by changing any figure: this check catches copies, and the headline's rule (no
 * single key sets it) is what holds against a determined forger.
 */
function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The columns of cell_measurements, in order: a row field with no column is a compile error (statements.ts). */
export const MEASUREMENT_COLUMNS = [
  'result_id',
  'idx',
  'label',
  'environment_fingerprint',
  'workload_fingerprint',
  'ops_median',
  'no_verdict',
  'histogram_sha256',
] as const;

export function insertMeasurementSql(): string {
  const cols = MEASUREMENT_COLUMNS;
  return `INSERT INTO cell_measurements (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`;
}
