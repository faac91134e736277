import { type NormalizedWorkload, normalizeWorkload, type WorkloadInput } from '@redis-benchdb/result';
import type { BenchDb } from '../database/open.js';
import { DISPUTED_R } from '../database/result-sql.js';
import { readDocument } from '../store/envelopes.js';

/**
 * Workloads as the explorer sees them: every cell that can be compared (it has a workload
 * fingerprint, a median, a listed result, and replies that were not mostly errors), and what each
 * fingerprint's workload is. Both read the cells_cohort index of migration 4, not the cells'
 * histograms: at 10,000 results (350,000 cells) the walk takes about a second.
 */

export interface WorkloadCell {
  workloadFingerprint: string;
  resultId: string;
  label: string;
  opsMedian: number;
  opsCi95Low: number | null;
  opsCi95High: number | null;
  p50Us: number | null;
  p99Us: number | null;
  unstable: 0 | 1 | null;
  clientBound: 0 | 1 | null;
  /** What admission reads (packages/result admission.ts): the cell's no-verdict flags, cross-check, incomplete. */
  noVerdict: string | null;
  crossCheck: string | null;
  incomplete: 0 | 1 | null;
}

const CELLS_SQL = `SELECT c.workload_fingerprint AS workloadFingerprint, c.result_id AS resultId, c.label,
              c.ops_median AS opsMedian, c.ops_ci95_low AS opsCi95Low, c.ops_ci95_high AS opsCi95High,
              c.p50_us AS p50Us, c.p99_us AS p99Us, c.unstable, c.client_bound AS clientBound,
              c.cross_check AS crossCheck, c.incomplete,
              (SELECT m.no_verdict FROM cell_measurements m
                WHERE m.result_id = c.result_id AND m.idx = c.idx) AS noVerdict
         FROM cells c INDEXED BY cells_cohort
         JOIN results r INDEXED BY results_site_by_id ON r.id = c.result_id
        WHERE c.workload_fingerprint IS NOT NULL AND c.ops_median IS NOT NULL AND r.retracted_at IS NULL
          AND NOT ${DISPUTED_R}
          AND NOT EXISTS (SELECT 1 FROM warnings w INDEXED BY warnings_by_cell
                           WHERE w.result_id = c.result_id AND w.cell_label = c.label AND w.code = 'ERRORS')
        ORDER BY c.workload_fingerprint`;

/** Every comparable cell, grouped by workload fingerprint (the index's order, so no sort), slowest first within one. */
export function* iterateWorkloadCells(db: BenchDb): Generator<WorkloadCell> {
  yield* db.sqlite.prepare<[], WorkloadCell>(CELLS_SQL).iterate();
}

/** What a fingerprint was computed from, and the label its first stored cell carried. */
export interface WorkloadDefinition {
  workloadFingerprint: string;
  label: string;
  workload: NormalizedWorkload;
}

/**
 * The workload behind a fingerprint, read from one cell's document (a single JSON path, so one
 * document per fingerprint), normalized as the fingerprint was. Null when no stored cell has it.
 */
export function workloadDefinition(db: BenchDb, workloadFingerprint: string): WorkloadDefinition | null {
  const row = db.sqlite
    .prepare<[string], { label: string; resultId: string; idx: number }>(
      `SELECT c.label, c.result_id AS resultId, c.idx
         FROM cells c JOIN results r ON r.id = c.result_id
        WHERE c.workload_fingerprint = ? AND r.kind = 'signed' LIMIT 1`,
    )
    .get(workloadFingerprint);
  if (!row) return null;
  const doc = JSON.parse(readDocument(db, row.resultId)!) as { cells?: { workload?: WorkloadInput }[] };
  const workload = doc.cells?.[row.idx]?.workload;
  if (!workload) return null;
  return { workloadFingerprint, label: row.label, workload: normalizeWorkload(workload) };
}

export function explainWorkloadCells(db: BenchDb): string {
  return (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${CELLS_SQL}`).all() as { detail: string }[])
    .map((r) => r.detail)
    .join('; ');
}
