import type { ResultV1 } from '@redis-benchdb/result';
import type Database from 'better-sqlite3';
import { type ShippedMeasurementRow, shippedMeasurementRows } from './shipped/04-measurement-rows.js';

/**
 * Migration 4: what verdicts and cohort integrity need (issue 13).
 *
 * cell_measurements: per cell of a signed result, its environment and workload fingerprints, median
 * ops/s and the warnings that keep it from a verdict (the between-run noise of an environment is
 * measured from the unflagged ones), and the SHA-256 of its histogram (measurements.ts). Small rows
 * with their own indexes: the site reads them for 10,000 results without touching a document.
 *
 * result_copies: results whose measurements repeat an earlier result's, under the same key (ingest
 * refuses them under another key). Kept, shown as copies, never counted twice: left out of headlines
 * and noise estimates.
 */
export const MEASUREMENTS_SQL = `
CREATE TABLE cell_measurements (
  result_id TEXT NOT NULL REFERENCES results (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  label TEXT NOT NULL,
  environment_fingerprint TEXT,
  workload_fingerprint TEXT,
  ops_median REAL NOT NULL,
  no_verdict TEXT,
  histogram_sha256 TEXT,
  PRIMARY KEY (result_id, idx)
) STRICT;

CREATE INDEX cell_measurements_by_histogram ON cell_measurements (histogram_sha256)
  WHERE histogram_sha256 IS NOT NULL;
-- One environment's repeated results, workload by workload: the noise query (noise-queries.ts).
-- label for the measuring script; no_verdict is always null here, but listed so the index covers the query.
CREATE INDEX cell_measurements_noise
  ON cell_measurements (environment_fingerprint, workload_fingerprint, ops_median, result_id, label, no_verdict)
  WHERE no_verdict IS NULL;

CREATE TABLE result_copies (
  result_id TEXT PRIMARY KEY REFERENCES results (id) ON DELETE CASCADE,
  copy_of TEXT NOT NULL REFERENCES results (id),
  cell_label TEXT NOT NULL
) STRICT;
`;

/**
 * Results stored before this migration: their rows computed as ingest computed them when it shipped
 * (shipped/04-measurement-rows.ts), then any
 * that repeats an earlier-received result's histogram marked as its copy (whatever the key: they
 * were accepted before the check existed, so they are marked rather than removed).
 */
const MARK_EARLIER_COPIES = `
INSERT OR IGNORE INTO result_copies (result_id, copy_of, cell_label)
SELECT m.result_id, o.result_id, m.label
  FROM cell_measurements m
  JOIN cell_measurements o ON o.histogram_sha256 = m.histogram_sha256 AND o.result_id <> m.result_id
  JOIN results r ON r.id = m.result_id
  JOIN results s ON s.id = o.result_id
 WHERE m.histogram_sha256 IS NOT NULL
   AND (s.received_at < r.received_at OR (s.received_at = r.received_at AND s.id < r.id))
 ORDER BY m.result_id, s.received_at, s.id, m.idx;

-- As ingest stores them: a digest an earlier result holds is not kept twice (copies.ts).
UPDATE cell_measurements AS m SET histogram_sha256 = NULL
 WHERE m.histogram_sha256 IS NOT NULL AND EXISTS (
   SELECT 1 FROM cell_measurements o
     JOIN results s ON s.id = o.result_id
     JOIN results r ON r.id = m.result_id
    WHERE o.histogram_sha256 = m.histogram_sha256 AND o.result_id <> m.result_id
      AND (s.received_at < r.received_at OR (s.received_at = r.received_at AND s.id < r.id)))`;

/**
 * The rows as this migration's table holds them. Its own copy, not ingest's insertMeasurementSql():
 * a column added to cell_measurements later would be in that statement before the migration that adds
 * it has run. The rows come from the migration's frozen copy (shipped/), so they hold exactly these columns.
 */
const INSERT_MEASUREMENT = `INSERT INTO cell_measurements (result_id, idx, label, environment_fingerprint,
  workload_fingerprint, ops_median, no_verdict, histogram_sha256)
  VALUES (@result_id, @idx, @label, @environment_fingerprint, @workload_fingerprint, @ops_median, @no_verdict,
  @histogram_sha256)`;

export function measurementsMigration(sqlite: Database.Database): void {
  sqlite.exec(MEASUREMENTS_SQL);
  const ids = sqlite
    .prepare<[], { id: string }>("SELECT id FROM results WHERE kind = 'signed'")
    .all()
    .map((r) => r.id);
  const doc = sqlite.prepare<[string], { document: string }>('SELECT document FROM results WHERE id = ?');
  const insert = sqlite.prepare(INSERT_MEASUREMENT);
  for (const id of ids) for (const row of storedRows(id, doc.get(id)!.document)) insert.run(row);
  sqlite.exec(MARK_EARLIER_COPIES);
}

/**
 * A row stored before some check existed may lack what ingest now requires (a null median, say): it
 * gets no rows, so it takes no part in noise estimates or the duplicate check, rather than stopping
 * the database from opening.
 */
function storedRows(id: string, document: string): ShippedMeasurementRow[] {
  try {
    const rows = shippedMeasurementRows(id, JSON.parse(document) as ResultV1);
    return rows.every((r) => Number.isFinite(r.ops_median)) ? rows : [];
  } catch {
    return [];
  }
}
