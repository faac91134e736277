import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest, openDatabase } from '@redis-benchdb/db';
import { keyFingerprint } from '@redis-benchdb/result';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDatasetDir, DATA_KEY_NAME, MANIFEST_NAME } from '../lib/dataset.mjs';

// CI's check of the project's own measurements: every file under data/results/<machine>/ passes
// the same ingest() as the service (signature, schema, plausibility), is signed by the data key
// that data/README.md names, and agrees with its directory's manifest.json. With no results yet,
// there is nothing to refuse, and the test says so.
const root = fileURLToPath(new URL('../../', import.meta.url));
const results = join(root, 'data/results');
const machines = existsSync(results)
  ? readdirSync(results).filter((d) => statSync(join(results, d)).isDirectory())
  : [];
const dataKey = existsSync(join(results, DATA_KEY_NAME))
  ? keyFingerprint(readFileSync(join(results, DATA_KEY_NAME), 'utf8'))
  : null;

const temp = mkdtempSync(join(tmpdir(), 'rbdb-data-results-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe(`data/results (${machines.length} machine director${machines.length === 1 ? 'y' : 'ies'})`, () => {
  it('names its data key, and data/README.md gives the same fingerprint', () => {
    expect(dataKey, `${join(results, DATA_KEY_NAME)} is missing`).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(readFileSync(join(root, 'data/README.md'), 'utf8')).toContain(dataKey);
  });

  it.skipIf(machines.length > 0)('holds no results yet: nothing to check', () => {
    expect(machines).toEqual([]);
  });

  for (const machine of machines) {
    const dir = join(results, machine);
    const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== MANIFEST_NAME);

    it(`${machine}: every file agrees with manifest.json and is signed by the data key`, () => {
      expect(checkDatasetDir(dir, { keyFingerprint: dataKey })).toEqual([]);
    });

    it(`${machine}: the service's ingest() takes all ${files.length} files`, () => {
      const db = openDatabase(join(temp, `${machine}.sqlite`));
      try {
        for (const file of files) {
          let outcome: { duplicate: boolean };
          try {
            outcome = ingest(db, readFileSync(join(dir, file), 'utf8'));
          } catch (err) {
            throw new Error(`${join(dir, file)}: ${(err as Error).message}`);
          }
          expect(outcome.duplicate, `${file} is a copy of another file`).toBe(false);
        }
      } finally {
        db.close();
      }
    });
  }
});
