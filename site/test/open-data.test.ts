import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingest, openDatabase } from '@redis-benchdb/db';
import { body, variant } from '@redis-benchdb/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { startOpenData } from '../integration/open-data.mjs';

// The open-data step on a real file, without a site build: the files are written once per state of
// the database (its fingerprint, read through packages/db) and reused until a result comes in.
const dir = mkdtempSync(join(tmpdir(), 'rbdb-open-data-'));

/** Every line of every part the index of `out` names (results-parts.json, the monthly parts). */
function linesOfParts(out: string): string[] {
  const index = JSON.parse(readFileSync(join(out, 'results-parts.json'), 'utf8')) as {
    parts: { file: string }[];
  };
  return index.parts.flatMap((p) => readFileSync(join(out, p.file), 'utf8').trim().split('\n'));
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('open data', () => {
  it('writes the monthly parts and a snapshot once per state of the database, and again after a new result', async () => {
    const dbPath = join(dir, 'benchdb.sqlite');
    const db = openDatabase(dbPath);
    ingest(db, body(variant(1)));
    // The worker reads the database the site build is given.
    process.env.REDIS_BENCHDB_DB = dbPath;
    const cache = join(dir, 'cache');
    try {
      const first = await startOpenData(join(dir, 'a'), cache);
      expect(first).toMatchObject({ results: 1, reused: false });
      expect(
        readFileSync(join(dir, 'a', 'benchdb.sqlite'))
          .subarray(0, 15)
          .toString(),
      ).toBe('SQLite format 3');
      expect(linesOfParts(join(dir, 'a'))).toHaveLength(1);
      expect(await startOpenData(join(dir, 'b'), cache)).toMatchObject({ results: 1, reused: true });
      ingest(db, body(variant(2)));
      expect(await startOpenData(join(dir, 'c'), cache)).toMatchObject({ results: 2, reused: false });
      expect(linesOfParts(join(dir, 'c'))).toHaveLength(2);
    } finally {
      delete process.env.REDIS_BENCHDB_DB;
      db.close();
    }
  });
});
