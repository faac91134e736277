import type Database from 'better-sqlite3';
import type { BenchDb } from '../database/open.js';
import { DISPUTED_R, SIGNER_OF_R } from '../database/result-sql.js';
import { ADMITTED_CELL_SQL } from './admitted-sql.js';
import { heldResultsJson } from './standing.js';

/**
 * A cohort is every listed result that ran one workload (equal workload fingerprints): the only
 * results a cell's figure may be ranked against. The result page, the CLI after a submit and the
 * read API all rank through here, so they agree.
 *
 * Cost: one range of the cells_cohort index (migration 4) and a lookup in two covering indexes per
 * member; no histogram, document or warning message is read. It grows with the cohort, never with the database:
 * 170 ms for a cohort of 10,000 on this project's 2-core VM with the machine loaded (load 20); about
 * 60 ms at load 8 once migration 6 answered the ERRORS check from an index. A submit's rank counts
 * instead (count-rank.ts).
 * A cohort read once ranks any number of its members in O(log n) each (rankIn).
 */

/** One result of a cohort, by its cell of the workload. */
export interface CohortMember {
  resultId: string;
  /** The cell's median ops/s; the fastest such cell if the result ran the workload twice. */
  opsPerSec: number;
  /**
   * Who signed it: its key's signer (migration 7), the key itself when the key has none; null for
   * none (never the case for a result with a workload fingerprint today).
   */
  signer: string | null;
  /** The client machine's CPU model, or null when unknown. */
  cpuModel: string | null;
  /** Its machine kind (packages/result identity.ts): what "the same machine" means when ranking. */
  machineKey: string | null;
  machineLabel: string | null;
  /** Its server configuration (identity.ts); configDefault 1 for the configuration `run` launches by default. */
  configKey: string | null;
  configLabel: string | null;
  configDefault: number | null;
}

export interface Cohort {
  workloadFingerprint: string;
  /** Slowest first. */
  members: CohortMember[];
  /**
   * Distinct signers among the members: how many submitters the cohort stands for. Two keys of one
   * signer (the project's data keys) count once.
   */
  distinctSigners: number;
}

export interface CohortOptions {
  /**
   * Only results from this CPU model name. Several machine kinds may share one (VMs of one "AMD EPYC"
   * with other caches): a caller that summarises checks the members' machineKey (the read API does).
   */
  cpuModel?: string;
  /** Only results of this machine kind ("among the same machine kind"). */
  machineKey?: string;
  /** Only results of this configuration (its key), or 'default': of the configuration `run` launches by default. */
  config?: string;
}

/**
 * Left out: retracted and disputed results (disputes.ts), cells without a median, cells whose replies
 * were mostly errors (warning ERRORS): their ops/s are how fast the server refused, and every cell the
 * admission rule leaves out (admitted-sql.ts: busy host, drift, client-bound, io-threads over CPUs...),
 * and every result the corroboration rule holds back (standing.ts: @held, provisional and outliers),
 * so no such result moves another's rank. warnings_by_cell (migration 6)
 * answers that from the index, for this result's cell alone; not the index of every ERRORS warning.
 */
export const COHORT_SQL = `SELECT c.result_id AS resultId, max(c.ops_median) AS opsPerSec, ${SIGNER_OF_R} AS signer,
              r.cpu_model AS cpuModel, r.machine_key AS machineKey, r.machine_label AS machineLabel,
              r.config_key AS configKey, r.config_label AS configLabel, r.config_default AS configDefault
         FROM cells c INDEXED BY cells_cohort
         JOIN results r INDEXED BY results_site_by_id ON r.id = c.result_id
        WHERE c.workload_fingerprint = @fp AND c.ops_median IS NOT NULL AND r.retracted_at IS NULL AND NOT ${DISPUTED_R}
          AND (@cpu IS NULL OR r.cpu_model = @cpu) AND (@kind IS NULL OR r.machine_key = @kind)
          AND (@config IS NULL OR (@config = 'default' AND r.config_default = 1) OR r.config_key = @config)
          AND ${ADMITTED_CELL_SQL} AND c.result_id NOT IN (SELECT value FROM json_each(@held))
          AND NOT EXISTS (SELECT 1 FROM warnings w INDEXED BY warnings_by_cell
                           WHERE w.result_id = c.result_id AND w.cell_label = c.label AND w.code = 'ERRORS')
        GROUP BY c.result_id`;

type CohortStatement = Database.Statement<
  [{ fp: string; cpu: string | null; kind: string | null; config: string | null; held: string }],
  CohortMember
>;
const statements = new WeakMap<BenchDb, CohortStatement>();

export function cohort(db: BenchDb, workloadFingerprint: string, opts: CohortOptions = {}): Cohort {
  let st = statements.get(db);
  if (!st) {
    st = db.sqlite.prepare(COHORT_SQL) as CohortStatement;
    statements.set(db, st);
  }
  const members = st.all({
    fp: workloadFingerprint,
    cpu: opts.cpuModel ?? null,
    kind: opts.machineKey ?? null,
    config: opts.config ?? null,
    held: heldResultsJson(db),
  });
  members.sort((a, b) => a.opsPerSec - b.opsPerSec || (a.resultId < b.resultId ? -1 : 1));
  return withSigners(workloadFingerprint, members);
}

function withSigners(workloadFingerprint: string, members: CohortMember[]): Cohort {
  const signers = new Set(members.map((m) => m.signer).filter((k) => k !== null));
  return { workloadFingerprint, members, distinctSigners: signers.size };
}

/** Where one member stands among the others of its cohort. */
export interface CohortRank {
  opsPerSec: number;
  /** Members, this result included. */
  size: number;
  /** Distinct signers among the members (keys of one signer count once). */
  distinctSigners: number;
  /** Other members slower than this one, as fast (equal medians), and faster. */
  slower: number;
  equal: number;
  faster: number;
  /**
   * The share of the other members this one is faster than, in percent, ties counting half:
   * 100 × (slower + equal / 2) / (size − 1). Null when it is the only member.
   */
  percentile: number | null;
}

// Where each member sits, built on a cohort's first rank: a site build ranks 10,000 results in one
// cohort, and a linear search each time cost seconds.
const positions = new WeakMap<Cohort, Map<string, number>>();

/** The rank of a result in a cohort; null when the result is not a member (retracted, or another workload). */
export function rankIn(c: Cohort, resultId: string): CohortRank | null {
  let at = positions.get(c);
  if (!at) {
    at = new Map(c.members.map((m, i) => [m.resultId, i]));
    positions.set(c, at);
  }
  const i = at.get(resultId);
  if (i === undefined) return null;
  const ops = c.members[i]!.opsPerSec;
  // Members are slowest first: two binary searches bound the run of equal medians.
  const figure = (j: number) => c.members[j]!.opsPerSec;
  const slower = countBelow(c.members.length, figure, ops, false);
  return rankFromCounts(
    ops,
    c.members.length,
    c.distinctSigners,
    slower,
    countBelow(c.members.length, figure, ops, true) - slower,
  );
}

/**
 * Where a figure that is not a member would stand among the members, counted as one more: the rank
 * of a result the corroboration rule holds back (standing.ts), which no other result's rank counts.
 */
export function rankAmong(c: Cohort, ops: number): CohortRank {
  const figure = (j: number) => c.members[j]!.opsPerSec;
  const slower = countBelow(c.members.length, figure, ops, false);
  const atOps = countBelow(c.members.length, figure, ops, true) - slower + 1;
  return rankFromCounts(ops, c.members.length + 1, c.distinctSigners, slower, atOps);
}

/**
 * A member's rank from the counts around its figure: `slower` members below it and `atOps` at it,
 * itself included. Percentile: 100 × (slower + equal / 2) / (size − 1).
 */
export function rankFromCounts(
  ops: number,
  size: number,
  distinctSigners: number,
  slower: number,
  atOps: number,
): CohortRank {
  const equal = atOps - 1;
  const others = size - 1;
  return {
    opsPerSec: ops,
    size,
    distinctSigners,
    slower,
    equal,
    faster: others - slower - equal,
    percentile: others === 0 ? null : (100 * (slower + equal / 2)) / others,
  };
}

/** How many of `length` figures, ascending (`at(i)`), are below `x` (or, with `orEqual`, not above it). */
export function countBelow(length: number, at: (i: number) => number, x: number, orEqual: boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const v = at(mid);
    if (v < x || (orEqual && v === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The query plan of a cohort, one line per step: a test holds it to the indexes. */
export function explainCohort(db: BenchDb): string {
  return (
    db.sqlite
      .prepare(`EXPLAIN QUERY PLAN ${COHORT_SQL}`)
      .all({ fp: 'x', cpu: null, kind: null, config: null, held: '[]' }) as {
      detail: string;
    }[]
  )
    .map((r) => r.detail)
    .join('; ');
}
