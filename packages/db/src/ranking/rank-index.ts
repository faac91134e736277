import { standingReason } from '@redis-benchdb/result';
import type Database from 'better-sqlite3';
import type { BenchDb } from '../database/open.js';
import { DISPUTED_R, SIGNER_OF_R } from '../database/result-sql.js';
import { ADMITTED_CELL_SQL } from './admitted-sql.js';
import { type CohortMember, type CohortRank, cohort, countBelow, rankFromCounts } from './cohort.js';
import { type HeadlineRank, headlineCells, type RankOptions } from './headline-ranks.js';
import { heldResults, refreshStandingsAfterStoring, standingOf } from './standing.js';

/**
 * Cohort ranks kept in memory and updated as results are stored: the ranks a submit's answer carries.
 *
 * countRank (count-rank.ts) counts a cohort in SQLite, one pass over every member. Run for every
 * submission on the event loop, that made ingest O(cohort) a submission: over 20,000 submissions of
 * one workload, bench:ingest fell from 1,214-1,345 accepted/s to 78, and a cohort of 10^6 would cost
 * seconds a submission. Here a cohort is read once (cohort(), the same query) and kept sorted; each
 * result this process stores is inserted by binary search, and a rank is two binary searches. The
 * figures are countRank's: a test holds them equal, ties, left-out cells and CPU models included.
 *
 * Another process's write (a `db:build` on the same file) shows in SQLite's data_version and drops
 * everything; so does a retraction (reset()). At most `maxCohorts` cohorts are kept, the least
 * recently used dropped first.
 */
export class RankIndex {
  readonly #db: BenchDb;
  readonly #max: number;
  /** By `${workloadFingerprint}\n${cpuModel ?? ''}`; '' is the whole cohort. */
  readonly #cohorts = new Map<string, SortedCohort>();
  #dataVersion: number;
  /** The results held back when the cohorts were last brought up to date (standing.ts). */
  #held: Set<string>;
  readonly #memberRows: Database.Statement<[string], MemberRow>;
  readonly #resultRow: Database.Statement<[string], { cpuModel: string | null }>;
  readonly #cells: Database.Statement<[string], { label: string; workloadFingerprint: string | null }>;

  constructor(db: BenchDb, maxCohorts = 200) {
    this.#db = db;
    this.#max = maxCohorts;
    this.#dataVersion = this.#readDataVersion();
    this.#held = new Set(heldResults(db));
    this.#memberRows = db.sqlite.prepare(MEMBER_SQL);
    this.#resultRow = db.sqlite.prepare(
      'SELECT machine_key AS cpuModel FROM results INDEXED BY results_site_by_id WHERE id = ? AND retracted_at IS NULL',
    );
    this.#cells = db.sqlite.prepare(
      'SELECT label, workload_fingerprint AS workloadFingerprint FROM cells WHERE result_id = ? ORDER BY idx',
    );
  }

  /** A result was retracted (or anything else that can take members out): read cohorts afresh. */
  reset(): void {
    this.#cohorts.clear();
    this.#held = new Set(heldResults(this.#db));
  }

  /**
   * This process stored a new result: it joins every cohort held here that it belongs to, unless the
   * corroboration rule holds it back (standing.ts). When it changed another result's standing (it
   * vouched for a provisional one), every cohort is read afresh.
   */
  added(resultId: string): void {
    if (this.#stale()) return;
    refreshStandingsAfterStoring(this.#db, resultId);
    const before = this.#held;
    this.#held = new Set(heldResults(this.#db));
    const changed =
      [...this.#held].some((id) => id !== resultId && !before.has(id)) ||
      [...before].some((id) => !this.#held.has(id));
    if (changed) {
      this.#cohorts.clear();
      return;
    }
    if (this.#held.has(resultId)) return;
    for (const m of this.#memberRows.all(resultId)) {
      this.#cohorts.get(cohortKey(m.fp, null))?.insert(resultId, m);
      if (m.cpuModel !== null) this.#cohorts.get(cohortKey(m.fp, m.cpuModel))?.insert(resultId, m);
    }
  }

  /** As resultRanks(): the ranks of a listed result's headline cells. */
  ranks(resultId: string, opts: RankOptions = {}): HeadlineRank[] {
    this.#stale();
    const r = this.#resultRow.get(resultId);
    if (!r) return [];
    const held = standingReason(standingOf(this.#db, resultId));
    // A held result is no member: it is ranked by its own figure, as one more (cohort.ts rankAmong).
    const own = held ? new Map(this.#memberRows.all(resultId).map((m) => [m.fp, m.opsPerSec])) : null;
    const rank = (fp: string, cpu: string | null) => {
      const cohort = this.#cohort(fp, cpu);
      const ops = own?.get(fp);
      return ops === undefined ? cohort.rankOf(resultId) : cohort.rankAmong(ops);
    };
    const out: HeadlineRank[] = [];
    for (const c of headlineCells(this.#cells.all(resultId))) {
      const fp = c.workloadFingerprint!;
      const overall = rank(fp, null);
      if (!overall) continue;
      const cpu = opts.sameCpu ? r.cpuModel : null;
      const sameCpu = cpu === null ? null : rank(fp, cpu);
      out.push({ label: c.label, workloadFingerprint: fp, overall, sameCpu, held });
    }
    return out;
  }

  #cohort(fp: string, cpuModel: string | null): SortedCohort {
    const key = cohortKey(fp, cpuModel);
    let c = this.#cohorts.get(key);
    if (c) {
      // Most recently used last: a Map keeps insertion order.
      this.#cohorts.delete(key);
    } else {
      // The "same CPU" cohort is the machine kind's (identity.ts): cpuModel here holds its key.
      c = new SortedCohort(cohort(this.#db, fp, cpuModel === null ? {} : { machineKey: cpuModel }).members);
      if (this.#cohorts.size >= this.#max) this.#cohorts.delete(this.#cohorts.keys().next().value!);
    }
    this.#cohorts.set(key, c);
    return c;
  }

  /** Another connection committed since the last look: drop every cohort. */
  #stale(): boolean {
    const v = this.#readDataVersion();
    if (v === this.#dataVersion) return false;
    this.#dataVersion = v;
    this.#cohorts.clear();
    this.#held = new Set(heldResults(this.#db));
    return true;
  }

  #readDataVersion(): number {
    return this.#db.sqlite.pragma('data_version', { simple: true }) as number;
  }
}

interface MemberRow {
  fp: string;
  opsPerSec: number;
  signer: string | null;
  cpuModel: string | null;
}

/** One result's membership in each cohort, by COHORT_SQL's rules (cohort.ts: change both together; a test holds them equal). */
const MEMBER_SQL = `SELECT c.workload_fingerprint AS fp, max(c.ops_median) AS opsPerSec,
              ${SIGNER_OF_R} AS signer, r.machine_key AS cpuModel
         FROM cells c JOIN results r ON r.id = c.result_id
        WHERE c.result_id = ? AND c.workload_fingerprint IS NOT NULL AND c.ops_median IS NOT NULL
          AND r.retracted_at IS NULL AND ${ADMITTED_CELL_SQL} AND NOT ${DISPUTED_R}
          AND NOT EXISTS (SELECT 1 FROM warnings w INDEXED BY warnings_by_cell
                           WHERE w.result_id = c.result_id AND w.cell_label = c.label AND w.code = 'ERRORS')
        GROUP BY c.workload_fingerprint`;

const cohortKey = (fp: string, cpuModel: string | null) => `${fp}\n${cpuModel ?? ''}`;

/** A cohort's figures, slowest first, with each member's figure and each signer's count. */
class SortedCohort {
  readonly #ops: number[] = [];
  readonly #byResult = new Map<string, number>();
  readonly #signers = new Map<string, number>();

  constructor(members: readonly CohortMember[]) {
    // cohort() sorts them slowest first.
    for (const m of members) {
      this.#ops.push(m.opsPerSec);
      this.#byResult.set(m.resultId, m.opsPerSec);
      this.#countSigner(m.signer);
    }
  }

  insert(resultId: string, m: { opsPerSec: number; signer: string | null }): void {
    // Read after the commit, the cohort may hold it already.
    if (this.#byResult.has(resultId)) return;
    this.#ops.splice(this.#below(m.opsPerSec, true), 0, m.opsPerSec);
    this.#byResult.set(resultId, m.opsPerSec);
    this.#countSigner(m.signer);
  }

  /** As rankAmong() (cohort.ts): a figure that is not a member, counted as one more. */
  rankAmong(ops: number): CohortRank {
    const slower = this.#below(ops, false);
    const atOps = this.#below(ops, true) - slower + 1;
    return rankFromCounts(ops, this.#ops.length + 1, this.#signers.size, slower, atOps);
  }

  /** As rankIn(): null when the result is not a member. */
  rankOf(resultId: string): CohortRank | null {
    const ops = this.#byResult.get(resultId);
    if (ops === undefined) return null;
    const slower = this.#below(ops, false);
    return rankFromCounts(ops, this.#ops.length, this.#signers.size, slower, this.#below(ops, true) - slower);
  }

  #below(x: number, orEqual: boolean): number {
    return countBelow(this.#ops.length, (i) => this.#ops[i]!, x, orEqual);
  }

  #countSigner(signer: string | null): void {
    if (signer !== null) this.#signers.set(signer, (this.#signers.get(signer) ?? 0) + 1);
  }
}
