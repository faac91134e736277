import { type BenchDb, dataVersion, type HeadlineRank, RankIndex } from '@redis-benchdb/db';
import type { CohortQuery } from './read-worker.js';

/**
 * Cohort distributions as last read (their JSON), until the database changes. A cohort of 10,000
 * results takes tens of milliseconds to read, so it is read by `read` (a ReadPool thread), never on
 * the event loop; it changes only when a result is stored or retracted. This service's own writes call added() or retracted(); another process's (a `db:build` on the same
 * file) change SQLite's data_version, checked on every read (a pragma, no table read).
 */
export class CohortCache {
  readonly #db: BenchDb;
  readonly #max: number;
  readonly #entries = new Map<string, string>();
  #written = 0;
  #seen = '';

  constructor(db: BenchDb, maxEntries = 500) {
    this.#db = db;
    this.#max = maxEntries;
    this.#ranks = new RankIndex(db);
  }

  /**
   * Ranks of a result's headline cells, overall and on its CPU model, from cohorts kept sorted in
   * memory (RankIndex): a submit's answer, which counting the cohort in SQLite made O(cohort).
   */
  readonly #ranks: RankIndex;

  /** This service stored a new result. */
  added(resultId: string): void {
    this.#written++;
    this.#ranks.added(resultId);
  }

  /** This service retracted a result, or found one disputed (db disputes.ts): it leaves its cohorts. */
  retracted(): void {
    this.#written++;
    this.#ranks.reset();
  }

  ranks(resultId: string): HeadlineRank[] {
    return this.#ranks.ranks(resultId, { sameCpu: true });
  }

  /** The distribution's JSON, from the cache or from `read` (which runs the query off the event loop). */
  async get(
    workloadFingerprint: string,
    query: CohortQuery,
    read: (workloadFingerprint: string, query: CohortQuery) => Promise<string>,
  ): Promise<string> {
    const state = `${this.#written}:${dataVersion(this.#db)}`;
    if (state !== this.#seen) {
      this.#entries.clear();
      this.#seen = state;
    }
    const key = JSON.stringify([workloadFingerprint, query.machine, query.config, query.cpuModel]);
    let d = this.#entries.get(key);
    if (d === undefined) {
      d = await read(workloadFingerprint, query);
      // Kept only if nothing was written meanwhile: it may predate that write.
      if (state !== this.#seen) return d;
      // Oldest first out: a Map keeps insertion order.
      if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.set(key, d);
    }
    return d;
  }
}
