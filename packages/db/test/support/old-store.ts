import { type BenchDb, readDocument, readEnvelope } from '../../src/index.js';

/**
 * Puts a database back as version 13 stored it, before migration 14 (issue 42): each signed row's
 * envelope and payload as text in `results`, each cell's histogram as base64 in `cells.histogram`,
 * no result_envelopes and no run_group_size. What ingest wrote until then, rebuilt from what it
 * verified, so a test can build "the old way" from real results and migrate.
 */
export function backToVersion13(db: BenchDb): void {
  const ids = db.sqlite.prepare<[], string>("SELECT id FROM results WHERE kind = 'signed'").pluck().all();
  db.sqlite.exec('ALTER TABLE cells ADD COLUMN histogram TEXT');
  const setResult = db.sqlite.prepare('UPDATE results SET envelope = ?, document = ? WHERE id = ?');
  const setCell = db.sqlite.prepare('UPDATE cells SET histogram = ? WHERE result_id = ? AND idx = ?');
  for (const id of ids) {
    const document = readDocument(db, id)!;
    setResult.run(readEnvelope(db, id), document, id);
    const cells = (JSON.parse(document) as { cells: { histogram: string | null }[] }).cells;
    for (const [idx, c] of cells.entries()) setCell.run(c.histogram, id, idx);
  }
  db.sqlite.exec(`DROP TABLE result_envelopes; ALTER TABLE results DROP COLUMN run_group_size;
    DELETE FROM schema_migrations WHERE version >= 14`);
}
