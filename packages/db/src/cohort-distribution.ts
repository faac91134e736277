import { type CohortOptions, cohort } from './cohort.js';
import type { BenchDb } from './open.js';

/**
 * How a cohort's results spread: the read API's answer for one workload fingerprint. Its cost is the
 * cohort's (cohort.ts): one range of a covering index, growing with the cohort, never with the rest
 * of the database.
 */

/** Below this many results, percentiles would claim more than the results show: the values are listed instead. */
export const MIN_COHORT_FOR_PERCENTILES = 5;

/** The percentiles given, in percent. */
export const DISTRIBUTION_PERCENTILES = [10, 25, 50, 75, 90] as const;

export interface CohortDistribution {
  workloadFingerprint: string;
  /** The CPU model the cohort was narrowed to, or null for every machine. */
  cpuModel: string | null;
  count: number;
  distinctSigners: number;
  opsPerSec: {
    min: number | null;
    max: number | null;
    /** Nearest-rank percentiles (each is one member's median ops/s); null under MIN_COHORT_FOR_PERCENTILES. */
    percentiles: Record<`p${(typeof DISTRIBUTION_PERCENTILES)[number]}`, number> | null;
    /** Every member's median ops/s, slowest first, when there are too few for percentiles. */
    values: number[] | null;
  };
}

export function cohortDistribution(
  db: BenchDb,
  workloadFingerprint: string,
  opts: CohortOptions = {},
): CohortDistribution {
  const c = cohort(db, workloadFingerprint, opts);
  const ops = c.members.map((m) => m.opsPerSec);
  const enough = ops.length >= MIN_COHORT_FOR_PERCENTILES;
  return {
    workloadFingerprint,
    cpuModel: opts.cpuModel ?? null,
    count: ops.length,
    distinctSigners: c.distinctSigners,
    opsPerSec: {
      min: ops[0] ?? null,
      max: ops.at(-1) ?? null,
      percentiles: enough
        ? (Object.fromEntries(
            DISTRIBUTION_PERCENTILES.map((q) => [`p${q}`, nearestRank(ops, q)]),
          ) as NonNullable<CohortDistribution['opsPerSec']['percentiles']>)
        : null,
      values: enough ? null : ops,
    },
  };
}

/** The smallest value with at least q% of the values at or below it. `sorted` ascending, not empty. */
export function nearestRank(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil((q / 100) * sorted.length) - 1)]!;
}
