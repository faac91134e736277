import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest, openDatabase } from '@redis-benchdb/db';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDatasetDir, MANIFEST_NAME, machineDirs, readDataKeys } from '../lib/dataset.mjs';

// CI's check of the project's own measurements: every file under data/results/<machine>/ passes
// the same ingest() as the service (signature, schema, plausibility), is signed by the data key its
// manifest group names, that key is one of data/results/keys/ and data/README.md names it, and the
// files agree with their directory's manifest.json. With no results yet, there is nothing to
// refuse, and the test says so.
const root = fileURLToPath(new URL('../../', import.meta.url));
const results = join(root, 'data/results');
const machines = machineDirs(results);
const { keys, problems: keyProblems } = readDataKeys(results);

const temp = mkdtempSync(join(tmpdir(), 'rbdb-data-results-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe(`data/results (${machines.length} machine director${machines.length === 1 ? 'y' : 'ies'})`, () => {
  it('lists its data keys in keys/, each named by its fingerprint, and data/README.md names them all', () => {
    expect(keyProblems).toEqual([]);
    expect(keys.size, `${join(results, 'keys')} holds no data key`).toBeGreaterThan(0);
    const readme = readFileSync(join(root, 'data/README.md'), 'utf8');
    const unnamed = [...keys.keys()].filter((k) => !readme.includes(k));
    expect(unnamed, 'data keys that data/README.md does not name: add each to its list of keys').toEqual([]);
  });

  it.skipIf(machines.length > 0)('holds no results yet: nothing to check', () => {
    expect(machines).toEqual([]);
  });

  for (const machine of machines) {
    const dir = join(results, machine);
    const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== MANIFEST_NAME);

    it(`${machine}: every file agrees with manifest.json and is signed by its group's data key`, () => {
      expect(checkDatasetDir(dir, { keyFingerprints: new Set(keys.keys()) })).toEqual([]);
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
