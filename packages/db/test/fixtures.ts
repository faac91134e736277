import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fingerprintOf, otherKey as otherTestKey, key as testKey } from '@redis-benchdb/testing';
import { afterEach } from 'vitest';
import { assignSigner, type BenchDb, openDatabase } from '../src/index.js';

// Every signed-envelope maker of result's test support: one set for the package tests that sign.
export * from '@redis-benchdb/testing';

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

/**
 * A new database in which the operator has named the test keys' signers (`key` signs for "signer A",
 * `otherKey` for "signer B"): both are then anchors of the corroboration rule (packages/result
 * corroboration.ts), so tests of ranks, cohorts and disputes see every result of theirs admitted, as
 * before the rule. Two names: they stay two signers.
 */
export function vouchedDb(path = tempPath()): BenchDb {
  const db = tempDb(path);
  assignSigner(db, 'signer A', [fingerprintOf(testKey)]);
  assignSigner(db, 'signer B', [fingerprintOf(otherTestKey)]);
  return db;
}
