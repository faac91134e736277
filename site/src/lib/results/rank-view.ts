import {
  type Cohort,
  type CohortRank,
  cohort,
  headlineCells as headlineOf,
  rankIn,
  resultRanks,
  type SimilarResult,
  similarResults,
} from '@redis-benchdb/db';
import { median } from '@redis-benchdb/result';
import { database, headlineCells, indexRows } from '../data/data.js';
import { heldOf } from '../data/standing.js';
import { explorer, viewPath } from '../explore/explore-data.js';
import { safeStrings } from '../text/text.js';

/**
 * A result page's rank and neighbours, through the same db functions the CLI ranks with after a
 * submit (cohort, rankIn, headlineCells, similarResults), so a page and a terminal never disagree.
 */

export interface RankLine {
  label: string;
  rank: CohortRank;
  /** The cohort's median ops/s (every member's, this result's included). */
  cohortMedian: number;
  /** The workload in the explorer: every result behind the rank. */
  explorePath: string | null;
  /**
   * PROVISIONAL or OUTLIER when the corroboration rule holds this result back: it is then ranked
   * against the admitted results, as one more, and no other result's rank counts it.
   */
  held: 'PROVISIONAL' | 'OUTLIER' | null;
}

// Most pages rank the same two workloads (the baseline GET and SET): each cohort is read once.
const cohorts = new Map<string, { cohort: Cohort; median: number }>();
function cohortOf(fp: string): { cohort: Cohort; median: number } {
  let c = cohorts.get(fp);
  if (!c) {
    if (cohorts.size > 200) cohorts.clear(); // ad hoc workloads, one result each: keep memory flat
    const members = cohort(database(), fp);
    c = {
      cohort: members,
      median: members.members.length ? median(members.members.map((m) => m.opsPerSec)) : 0,
    };
    cohorts.set(fp, c);
  }
  return c;
}

export function rankLines(
  id: string,
  cells: readonly { label: string; workloadFingerprint: string | null }[],
): RankLine[] {
  const { catalog, data } = explorer();
  const held = heldOf(id);
  // A held result is no member of its cohorts: db resultRanks ranks its figure among them, as one more.
  const heldRanks = held
    ? new Map(resultRanks(database(), id).map((r) => [r.workloadFingerprint, r.overall]))
    : null;
  return headlineOf(cells).flatMap((cell) => {
    const c = cohortOf(cell.workloadFingerprint!);
    const rank = heldRanks ? heldRanks.get(cell.workloadFingerprint!) : rankIn(c.cohort, id);
    if (!rank) return [];
    const entry = data.get(cell.workloadFingerprint!.replace(/^sha256:/, '').slice(0, 16))?.workload;
    return [
      {
        label: cell.label,
        rank,
        cohortMedian: c.median,
        explorePath: entry ? viewPath(catalog, entry) : null,
        held,
      },
    ];
  });
}

/** Results shown under "Similar results": the page weighs about 300 bytes more for each. */
export const NEIGHBOURS = 5;

let baselineGet: Map<string, number> | null = null;
/** Similar results, each with its baseline GET when it ran one: a figure to tell them apart. */
let runDates: Map<string, { date: string | null; kind: 'signed' | 'imported' }> | null = null;
/**
 * Each similar result with its date: the run's, or an imported result's publication (issue 44: the
 * date the row was stored is the database's build day for every file of data/, not when it ran).
 */
export function neighbours(
  id: string,
): (SimilarResult & { getOps: number | null; date: string | null; kind: 'signed' | 'imported' })[] {
  runDates ??= new Map(indexRows().map((r) => [r.id, { date: r.date, kind: r.kind }]));
  baselineGet ??= new Map(
    headlineCells()
      .filter((c) => c.label === 'GET' && c.opsMedian !== null)
      .map((c) => [c.resultId, c.opsMedian!]),
  );
  // Their CPU models and versions are submitted text: cleaned as every list's are (text.ts).
  return similarResults(database(), id, NEIGHBOURS).map((s) =>
    safeStrings({
      ...s,
      getOps: baselineGet!.get(s.id) ?? null,
      date: runDates!.get(s.id)?.date ?? null,
      kind: runDates!.get(s.id)?.kind ?? 'signed',
    }),
  );
}
