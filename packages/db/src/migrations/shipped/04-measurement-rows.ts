import { createHash } from 'node:crypto';
import { noVerdictWarnings, type ResultV1 } from '@redis-benchdb/result';

/**
 * Migration 4's backfill rows, frozen as ingest computed them when the migration shipped
 * (packages/db/src/ingest/measurements.ts at the time). A migration keeps what it shipped with: if
 * ingest's rows change later, that change brings a migration of its own, and this backfill still
 * writes exactly the columns migration 4 creates. The format's own rules (noVerdictWarnings) come from
 * packages/result, the floor below, as every db file takes them.
 */

/** A histogram of fewer latencies than this has no digest (ingest's MIN_DIGEST_LATENCIES when shipped). */
const MIN_DIGEST_LATENCIES = 1000;

export type ShippedMeasurementRow = ReturnType<typeof shippedMeasurementRows>[number];

export function shippedMeasurementRows(resultId: string, r: ResultV1) {
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
      no_verdict: codes.length > 0 ? codes.join(',') : null,
      histogram_sha256:
        c.latencyUs.count >= MIN_DIGEST_LATENCIES
          ? createHash('sha256').update(c.histogram).digest('hex')
          : null,
    };
  });
}
