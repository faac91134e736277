import type Database from 'better-sqlite3';
import { encodeEnvelope } from './shipped/envelope-codec-v1.js';

/**
 * Migration 14: a store sized for a million results (issue 42). A signed result was held three times
 * over: its envelope as text, its payload again as `document`, and each cell's histogram as base64 in
 * `cells.histogram` (881 KiB a quick result). Now its envelope lives once, in result_envelopes, cut by
 * format 1 (shipped/envelope-codec-v1.ts, a frozen copy: this migration imports no live code):
 * the histograms as binary, the rest brotli-compressed; store/envelopes.ts gives back the exact bytes.
 *
 * `envelope` and `document` of a signed row become empty text rather than being dropped: migration 1's
 * CHECK names `envelope`, so dropping it means rebuilding `results`, which SQLite allows only with
 * foreign keys off, outside this migration's transaction, with every index remade. An imported row keeps
 * its (small) document there. What queries read of the document is a column: `run_group_size`.
 * `cells.histogram` goes: nothing filters or sorts by it, and the envelope holds it.
 *
 * The file keeps its size until a VACUUM hands the freed pages back (docs/DEPLOY.md).
 */
const SQL = `
CREATE TABLE result_envelopes (
  result_id TEXT PRIMARY KEY REFERENCES results (id) ON DELETE CASCADE,
  histograms BLOB NOT NULL,
  body BLOB NOT NULL
) STRICT;

ALTER TABLE results ADD COLUMN run_group_size INTEGER;
UPDATE results SET run_group_size = json_extract(document, '$.runGroup.size')
 WHERE kind = 'signed' AND run_group_id IS NOT NULL;
`;

export function envelopeStoreMigration(sqlite: Database.Database): void {
  sqlite.exec(SQL);
  const ids = sqlite
    .prepare<[], string>("SELECT id FROM results WHERE kind = 'signed' AND envelope <> ''")
    .pluck()
    .all();
  const read = sqlite.prepare<[string], string>('SELECT envelope FROM results WHERE id = ?').pluck();
  const insert = sqlite.prepare<[string, Buffer, Buffer]>(
    'INSERT INTO result_envelopes (result_id, histograms, body) VALUES (?, ?, ?)',
  );
  const empty = sqlite.prepare<[string]>("UPDATE results SET envelope = '', document = '' WHERE id = ?");
  // One row at a time: 10,000 envelopes of half a megabyte never sit in memory together.
  for (const id of ids) {
    const stored = encodeEnvelope(read.get(id)!);
    insert.run(id, stored.histograms, stored.body);
    empty.run(id);
  }
  sqlite.exec('ALTER TABLE cells DROP COLUMN histogram');
}
