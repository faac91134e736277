import type { BenchDb } from '../database/open.js';
import { DISPUTED_R } from '../database/result-sql.js';
import { resultStandings, standingsOfResults } from '../ranking/standing.js';

/** One workload's repeated medians in one environment, and the label its cells go by. */
export interface RepeatedCell {
  label: string;
  medians: number[];
}

/**
 * The medians of one environment's repeated results, workload by workload: what its between-run
 * noise is measured from (packages/result noise.ts). Only cells that could get a verdict count (no
 * BUSY_HOST, DRIFT, UNSTABLE...: the band is for the cells it judges), each listed result once: not
 * a retracted one, nor a copy (copies.ts), whose figures would count one run twice.
 * Answered from cell_measurements' partial index and the results' covering one: no document is read.
 */
export function repeatedMedians(db: BenchDb, environmentFingerprint: string): Map<string, RepeatedCell> {
  const rows = db.sqlite
    .prepare<[string], { resultId: string; fp: string; label: string; ops: number }>(REPEATED_SQL)
    .all(environmentFingerprint);
  // An outlier (ranking/standing.ts) is no evidence of the noise: forged repeats of an environment,
  // far from its kind's admitted results, would widen its band and silence its verdicts. A merely
  // provisional result (nobody has vouched for it yet, as for any run of a new kind) still counts.
  const standings = standingsOfResults(db, new Set(rows.map((r) => r.resultId)));
  const byWorkload = new Map<string, RepeatedCell>();
  for (const { resultId, fp, label, ops } of rows) {
    if (standings.get(resultId)?.status === 'outlier') continue;
    const cell = byWorkload.get(fp);
    if (cell) cell.medians.push(ops);
    else byWorkload.set(fp, { label, medians: [ops] });
  }
  return byWorkload;
}

/** The cells that are evidence of an environment's noise: repeatedMedians() reads them, noiseDigests() digests them. */
const EVIDENCE_WHERE = `m.no_verdict IS NULL AND m.workload_fingerprint IS NOT NULL AND r.retracted_at IS NULL
     AND NOT EXISTS (SELECT 1 FROM result_copies x WHERE x.result_id = m.result_id) AND NOT ${DISPUTED_R}`;

const REPEATED_SQL = `
  SELECT m.result_id AS resultId, m.workload_fingerprint AS fp, m.label, m.ops_median AS ops
    FROM cell_measurements m INDEXED BY cell_measurements_noise
    JOIN results r INDEXED BY results_site_by_id ON r.id = m.result_id
   WHERE m.environment_fingerprint = ? AND ${EVIDENCE_WHERE}`;

/** Environments with two listed results or more that are not copies, most results first. */
export function repeatedEnvironments(db: BenchDb): { environmentFingerprint: string; results: number }[] {
  return db.sqlite
    .prepare<[], { environmentFingerprint: string; results: number }>(
      `SELECT m.environment_fingerprint AS environmentFingerprint, count(DISTINCT m.result_id) AS results
         FROM cell_measurements m JOIN results r INDEXED BY results_site_by_id ON r.id = m.result_id
        WHERE m.environment_fingerprint IS NOT NULL AND r.retracted_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM result_copies x WHERE x.result_id = m.result_id) AND NOT ${DISPUTED_R}
        GROUP BY m.environment_fingerprint HAVING count(DISTINCT m.result_id) >= 2
        ORDER BY results DESC, environmentFingerprint`,
    )
    .all();
}

/** The noise query's plan, for a test that holds it to the indexes. */
export function repeatedMediansPlan(db: BenchDb): string {
  return (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${REPEATED_SQL}`).all('x') as { detail: string }[])
    .map((r) => r.detail)
    .join('; ');
}

/**
 * For each listed result, a digest of the evidence repeatedMedians() gives for its environment: what
 * its compare.json reads of other results. A result's kept page (the site's frozen-pages.ts) is
 * rendered again when it changes. Counts and sums, not the medians themselves: one pass over every
 * environment, and any result that joins, leaves or turns outlier changes its environment's count.
 */
export function noiseDigests(db: BenchDb): Map<string, string> {
  const standings = resultStandings(db);
  // Integers and XOR, so that the digest does not depend on the order SQLite returns the rows in.
  const byEnv = new Map<string, { n: number; sum: number; ids: number }>();
  const rows = db.sqlite
    .prepare<[], { env: string; resultId: string; ops: number }>(
      `SELECT m.environment_fingerprint AS env, m.result_id AS resultId, m.ops_median AS ops
         FROM cell_measurements m JOIN results r ON r.id = m.result_id
        WHERE m.environment_fingerprint IS NOT NULL AND ${EVIDENCE_WHERE}`,
    )
    .all();
  for (const { env, resultId, ops } of rows) {
    if (standings.get(resultId)?.status === 'outlier') continue;
    const d = byEnv.get(env) ?? { n: 0, sum: 0, ids: 0 };
    d.n++;
    d.sum += Math.round(ops);
    d.ids ^= Number.parseInt(resultId.slice(0, 8), 16);
    byEnv.set(env, d);
  }
  const out = new Map<string, string>();
  const envs = db.sqlite
    .prepare<[], { id: string; env: string | null }>(
      'SELECT id, environment_fingerprint AS env FROM results WHERE retracted_at IS NULL',
    )
    .all();
  for (const { id, env } of envs) {
    const d = env === null ? undefined : byEnv.get(env);
    out.set(id, d ? `${d.n}:${d.sum}:${d.ids}` : '-');
  }
  return out;
}
