import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ResultV1, workloadFingerprint } from '@redis-benchdb/result';
import { afterEach } from 'vitest';
import { type BenchDb, openDatabase } from '../src/index.js';

// Every signed-envelope maker of result's test support: one set for the package tests that sign.
export * from '../../result/test/support/envelopes.js';

/** Set every cell's pipeline depth, keeping its workload fingerprint true to the workload. */
export function withPipeline(r: ResultV1, depth: number): void {
  for (const c of r.cells) {
    c.workload.pipelineDepth = depth;
    c.label = `${c.test} P${depth}`;
    c.workloadFingerprint = workloadFingerprint(c.workload);
  }
}

/** When the example results are judged: a few days after they ran. */
export const NOW = new Date('2025-03-06T12:00:00Z');

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A path for a new database file in a temp dir removed after the test. */
export function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-db-'));
  dirs.push(dir);
  return join(dir, 'benchdb.sqlite');
}

const open: BenchDb[] = [];
afterEach(() => {
  for (const db of open.splice(0)) if (db.sqlite.open) db.close();
});

/** A new database in a temp file, closed after the test. */
export function tempDb(path = tempPath()): BenchDb {
  const db = openDatabase(path);
  open.push(db);
  return db;
}
