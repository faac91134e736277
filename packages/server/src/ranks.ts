import { type CohortRank, MIN_COHORT_FOR_PERCENTILES } from '@redis-benchdb/db';
import type { CohortCache } from './read/cohort-cache.js';

/**
 * Where a stored result's headline cells stand in their cohorts (results of the same workload
 * fingerprint), overall and among the same machine kind (identity.ts; the field keeps its old name,
 * sameCpu): what the submit response carries and the CLI prints. A percentile is given only from MIN_COHORT_FOR_PERCENTILES results up: "top 1%" of three
 * results would claim what three results cannot show, so below that only the place is given.
 */
export interface CohortStanding {
  /** Results in the cohort, this one included. */
  size: number;
  /** 1 for the fastest; results as fast as this one share its place. */
  place: number;
  /** Other results exactly as fast. */
  ties: number;
  /** Distinct signers in the cohort: how many submitters it stands for (several keys of one signer count once). */
  distinctSigners: number;
  /** Percent of the other results this one is faster than (ties count half), to one decimal; null under MIN_COHORT_FOR_PERCENTILES. */
  percentile: number | null;
}

export interface CellStanding {
  label: string;
  workloadFingerprint: string;
  opsPerSec: number;
  overall: CohortStanding;
  /** Null when the result names no CPU model. */
  sameCpu: CohortStanding | null;
  /**
   * The cohort `overall` ranks in, as the read API gives its distribution: every machine kind and
   * configuration (config=any); add machine=<key> for the kind `sameCpu` ranks in.
   */
  cohortUrl: string;
  /**
   * PROVISIONAL or OUTLIER when the corroboration rule (packages/result corroboration.ts) holds the
   * result out of every summary: it is then ranked against the admitted results as one more, and no
   * other result's rank counts it. Null when it is admitted.
   */
  held: 'PROVISIONAL' | 'OUTLIER' | null;
}

export function standings(cohorts: CohortCache, resultId: string): CellStanding[] {
  return cohorts.ranks(resultId).map((r) => ({
    label: r.label,
    workloadFingerprint: r.workloadFingerprint,
    opsPerSec: r.overall.opsPerSec,
    overall: standing(r.overall),
    sameCpu: r.sameCpu ? standing(r.sameCpu) : null,
    cohortUrl: `/api/v1/cohorts/${r.workloadFingerprint}?config=any`,
    held: r.held,
  }));
}

function standing(r: CohortRank): CohortStanding {
  return {
    size: r.size,
    place: r.faster + 1,
    ties: r.equal,
    distinctSigners: r.distinctSigners,
    percentile:
      r.size >= MIN_COHORT_FOR_PERCENTILES && r.percentile !== null
        ? Math.round(r.percentile * 10) / 10
        : null,
  };
}
