import type { BenchDb } from '../database/open.js';
import { readDocument } from '../store/envelopes.js';
import type { SiteCellRow } from './site.js';

/**
 * The figures of every cell of some results, for the site's side-by-side views (a machine's server
 * versions, cell by cell): the medians, intervals and latency summary, never the histogram or the
 * document. Cells are read by their primary key (result_id, idx), and every column read comes before
 * the histogram in the row, so SQLite does not walk the histograms' overflow pages.
 */
export interface CellFigureRow
  extends Pick<
    SiteCellRow,
    | 'resultId'
    | 'label'
    | 'test'
    | 'workloadFingerprint'
    | 'opsMedian'
    | 'opsCi95Low'
    | 'opsCi95High'
    | 'p99Us'
    | 'unstable'
  > {
  idx: number;
  p50Us: number | null;
  /** 1 when most of the cell's replies were errors (warning ERRORS): its ops/s are how fast the server refused. */
  errors: 0 | 1;
}

const FIGURES_SQL = `SELECT c.result_id AS resultId, c.idx, c.label, c.test,
       c.workload_fingerprint AS workloadFingerprint, c.ops_median AS opsMedian,
       c.ops_ci95_low AS opsCi95Low, c.ops_ci95_high AS opsCi95High, c.p50_us AS p50Us, c.p99_us AS p99Us,
       c.unstable,
       EXISTS (SELECT 1 FROM warnings w
                WHERE w.result_id = c.result_id AND w.code = 'ERRORS' AND w.cell_label = c.label) AS errors
  FROM cells c
 WHERE c.result_id = ?
 ORDER BY c.idx`;

/** Every cell of each result, in the results' order and each result's cell order. */
export function cellFiguresOf(db: BenchDb, resultIds: readonly string[]): CellFigureRow[] {
  const stmt = db.sqlite.prepare<[string], CellFigureRow>(FIGURES_SQL);
  return resultIds.flatMap((id) => stmt.all(id));
}

/**
 * The `environment.server` block of a stored result, as JSON text, or null (unknown id, imported
 * result, no server block). For what the site's lists do not carry (the AOF fsync policy, fields a
 * newer probe records): SQLite reads it out of the document, without the site parsing the whole.
 */
export function serverBlockOf(db: BenchDb, id: string): string | null {
  const key = db.statements.resultKey.get(id);
  if (key?.kind !== 'signed' || key.retracted_at !== null) return null;
  const server = (JSON.parse(readDocument(db, id)!) as { environment?: { server?: unknown } }).environment
    ?.server;
  return server === undefined ? null : JSON.stringify(server);
}

/** Results run without a suite (`-t`, a custom command; imported ones): each one's cell labels and first cell's median. */
export interface AdHocCells {
  resultId: string;
  /** The labels, in order, joined by U+001F (a label never contains it). */
  labels: string;
  firstOpsMedian: number | null;
}

export function adHocCells(db: BenchDb): AdHocCells[] {
  // The covering index lists results without reading their documents (suite_id sits after them in
  // the row); min(idx) makes SQLite take ops_median from the first cell's row.
  return db.sqlite
    .prepare<[], AdHocCells>(
      `SELECT resultId, group_concat(label, char(31)) AS labels, min(idx), opsMedian AS firstOpsMedian
         FROM (SELECT c.result_id AS resultId, c.idx, c.label, c.ops_median AS opsMedian
                 FROM results r INDEXED BY results_site_list JOIN cells c ON c.result_id = r.id
                WHERE r.retracted_at IS NULL AND r.suite_id IS NULL
                ORDER BY c.result_id, c.idx)
        GROUP BY resultId`,
    )
    .all()
    .map(({ resultId, labels, firstOpsMedian }) => ({ resultId, labels, firstOpsMedian }));
}
