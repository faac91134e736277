import type Database from 'better-sqlite3';
import type { BenchDb } from '../database/open.js';
import { ADMITTED_CELL_SQL } from './admitted-sql.js';
import { COHORT_SQL, type CohortRank, rankFromCounts } from './cohort.js';
import { heldResultsJson } from './standing.js';

/**
 * One result's rank in one cohort, overall and among its CPU model, counted by SQLite in one pass
 * over the cohort's index range: what rankIn(cohort(...)) gives, without building the cohort's
 * members in JavaScript (that took half the time at 10,000 results). A submit's answer waits for it.
 */
const RANK_SQL = `SELECT count(*) AS size, count(DISTINCT signer) AS signers,
         coalesce(sum(resultId = @id), 0) AS member,
         coalesce(sum(opsPerSec < @ops), 0) AS slower, coalesce(sum(opsPerSec = @ops), 0) AS atOps,
         coalesce(sum(machineKey IS @myCpu), 0) AS cpuSize,
         count(DISTINCT CASE WHEN machineKey IS @myCpu THEN signer END) AS cpuSigners,
         coalesce(sum(machineKey IS @myCpu AND opsPerSec < @ops), 0) AS cpuSlower,
         coalesce(sum(machineKey IS @myCpu AND opsPerSec = @ops), 0) AS cpuAtOps
    FROM (${COHORT_SQL})`;

/** The figure the cohort ranks a result by: its fastest cell of the workload (as COHORT_SQL's max). */
const OPS_SQL = `SELECT max(c.ops_median) AS ops FROM cells c JOIN results r ON r.id = c.result_id
                  WHERE c.result_id = ? AND c.workload_fingerprint = ? AND ${ADMITTED_CELL_SQL}
                    AND NOT EXISTS (SELECT 1 FROM warnings w INDEXED BY warnings_by_cell
                                     WHERE w.result_id = c.result_id AND w.cell_label = c.label AND w.code = 'ERRORS')`;

interface Counts {
  size: number;
  signers: number;
  member: number;
  slower: number;
  atOps: number;
  cpuSize: number;
  cpuSigners: number;
  cpuSlower: number;
  cpuAtOps: number;
}

interface Prepared {
  rank: Database.Statement<[Record<string, unknown>], Counts>;
  ops: Database.Statement<[string, string], { ops: number | null }>;
}
const prepared = new WeakMap<BenchDb, Prepared>();

export interface CountedRank {
  overall: CohortRank;
  /** Null when no CPU model was given. */
  sameCpu: CohortRank | null;
}

/**
 * Null when the result is not a member of the cohort (retracted, mostly errors, another workload).
 * A result the corroboration rule holds back (standing.ts) is no member, so it moves no other rank;
 * its own rank is where its figure would stand among the members: counted as one more.
 */
export function countRank(
  db: BenchDb,
  workloadFingerprint: string,
  resultId: string,
  cpuModel: string | null,
): CountedRank | null {
  let st = prepared.get(db);
  if (!st) {
    st = { rank: db.sqlite.prepare(RANK_SQL), ops: db.sqlite.prepare(OPS_SQL) } as Prepared;
    prepared.set(db, st);
  }
  const ops = st.ops.get(resultId, workloadFingerprint)?.ops;
  const held = heldResultsJson(db);
  if (ops === null || ops === undefined) return null;
  const n = st.rank.get({
    fp: workloadFingerprint,
    cpu: null,
    kind: null,
    config: null,
    id: resultId,
    ops,
    myCpu: cpuModel,
    held,
  })!;
  const outside = held.includes(JSON.stringify(resultId)) ? 1 : 0;
  if (n.member === 0 && outside === 0) return null;
  return {
    overall: rankFromCounts(ops, n.size + outside, n.signers, n.slower, n.atOps + outside),
    sameCpu:
      cpuModel === null
        ? null
        : rankFromCounts(ops, n.cpuSize + outside, n.cpuSigners, n.cpuSlower, n.cpuAtOps + outside),
  };
}
