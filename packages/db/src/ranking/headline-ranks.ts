import { standingReason } from '@redis-benchdb/result';
import type { BenchDb } from '../database/open.js';
import type { CohortRank } from './cohort.js';
import { countRank } from './count-rank.js';
import { standingOf } from './standing.js';

/**
 * A result's headline cells ranked in their cohorts: what its page shows and what the CLI prints
 * after a submit. The service ranks through RankIndex (rank-index.ts), which keeps cohorts in memory;
 * resultRanks counts them in SQLite each time, and is the reference a test holds RankIndex to.
 */

/** The cells ranked: the suite's baseline GET and SET, as the site's headline. */
export const HEADLINE_LABELS: readonly string[] = ['GET', 'SET'];
/** A result without those (an ad hoc run of other tests) is ranked by its first cells, this many. */
export const FALLBACK_HEADLINE_CELLS = 2;

/** The cells a rank is given for: labelled GET or SET; else the first few that have a workload fingerprint. */
export function headlineCells<C extends { label: string; workloadFingerprint: string | null }>(
  cells: readonly C[],
): C[] {
  const ranked = cells.filter((c) => c.workloadFingerprint !== null);
  const named = HEADLINE_LABELS.flatMap((l) => ranked.filter((c) => c.label === l).slice(0, 1));
  return named.length > 0 ? named : ranked.slice(0, FALLBACK_HEADLINE_CELLS);
}

export interface HeadlineRank {
  label: string;
  workloadFingerprint: string;
  /** Among every listed result that ran the workload. */
  overall: CohortRank;
  /** Among those from the same CPU model; null when asked not to, or the CPU model is unknown. */
  sameCpu: CohortRank | null;
  /**
   * Why the result is held out of every summary (standing.ts), or null when it is admitted. A held
   * result is ranked against the admitted members, as one more, and moves no other result's rank.
   */
  held: 'PROVISIONAL' | 'OUTLIER' | null;
}

export interface RankOptions {
  /** Rank among the results of the same CPU model too. @default false */
  sameCpu?: boolean;
}

/**
 * The ranks of a listed result's headline cells; empty for a result that is unknown, retracted or
 * imported (its cells have no workload fingerprint), or whose headline cells were all left out of
 * their cohorts (mostly errors).
 */
export function resultRanks(db: BenchDb, resultId: string, opts: RankOptions = {}): HeadlineRank[] {
  const r = db.sqlite
    .prepare<[string], { cpuModel: string | null }>(
      // "The same machine" is the machine kind (identity.ts), not the CPU model's name.
      'SELECT machine_key AS cpuModel FROM results INDEXED BY results_site_by_id WHERE id = ? AND retracted_at IS NULL',
    )
    .get(resultId);
  if (!r) return [];
  const cells = db.sqlite
    .prepare<[string], { label: string; workloadFingerprint: string | null }>(
      'SELECT label, workload_fingerprint AS workloadFingerprint FROM cells WHERE result_id = ? ORDER BY idx',
    )
    .all(resultId);
  const out: HeadlineRank[] = [];
  for (const c of headlineCells(cells)) {
    const fp = c.workloadFingerprint!;
    // Counted, overall and on the same CPU model in one pass: the same rank as rankIn(cohort(...)).
    const counted = countRank(db, fp, resultId, opts.sameCpu ? r.cpuModel : null);
    if (!counted) continue;
    out.push({
      label: c.label,
      workloadFingerprint: fp,
      overall: counted.overall,
      sameCpu: counted.sameCpu,
      held: standingReason(standingOf(db, resultId)),
    });
  }
  return out;
}
