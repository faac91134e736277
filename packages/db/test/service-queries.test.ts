import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type BatchOutcome,
  changeStamp,
  checkSubmission,
  copyDatabase,
  dataVersion,
  groupCommit,
  ingest,
  inReadTransaction,
  iterateReceipts,
  keysWithResults,
  listedResultCount,
  openDatabase,
  resultCounter,
  resultReceipt,
  SCHEMA_VERSION,
  schemaVersionOf,
} from '../src/index.js';
import { body, fingerprintOf, key, NOW, otherKey, tempDb, tempPath, variant } from './fixtures.js';

// The queries the service and the site's open-data step ask of packages/db instead of running SQL
// of their own (scripts/test/architecture.test.ts holds that), each on a real file.

describe('what the service reads of a stored result', () => {
  it('gives a receipt, the keys with results and the listed count, as stored and retracted', () => {
    const db = tempDb();
    const a = ingest(db, body(variant(1)), { now: NOW });
    const b = ingest(db, body(variant(2), otherKey), { now: NOW });
    expect(resultReceipt(db, a.id)).toEqual({ receivedAt: NOW.toISOString(), retractedAt: null });
    expect(resultReceipt(db, '0'.repeat(64))).toBeUndefined();
    expect(keysWithResults(db).sort()).toEqual([fingerprintOf(key), fingerprintOf(otherKey)].sort());
    expect(listedResultCount(db)).toBe(2);
    db.sqlite.prepare("UPDATE results SET retracted_at = '2025-03-07T00:00:00.000Z' WHERE id = ?").run(b.id);
    expect(resultReceipt(db, b.id)?.retractedAt).toBe('2025-03-07T00:00:00.000Z');
    expect(listedResultCount(db)).toBe(1);
    // Oldest first, ties by id: what the open-data fingerprint hashes.
    expect([...iterateReceipts(db)].map(([, id]) => id)).toEqual([a.id, b.id].sort());
    expect(schemaVersionOf(db)).toBe(SCHEMA_VERSION);
  });

  it('counts results again after this connection writes and after another one does', () => {
    const path = tempPath();
    const db = tempDb(path);
    const results = resultCounter(db);
    expect(results()).toBe(0);
    const stamp = changeStamp(db);
    expect(changeStamp(db)).toBe(stamp);
    ingest(db, body(variant(1)), { now: NOW });
    expect(changeStamp(db)).not.toBe(stamp);
    expect(results()).toBe(1);
    // Another connection's commit shows in data_version, which this connection's own do not move.
    const version = dataVersion(db);
    const other = openDatabase(path);
    try {
      ingest(other, body(variant(2)), { now: NOW });
    } finally {
      other.close();
    }
    expect(dataVersion(db)).not.toBe(version);
    expect(results()).toBe(2);
  });
});

describe('groupCommit', () => {
  it('stores a batch in one transaction, each refusal its own, the rest stored', () => {
    const db = tempDb();
    const commit = groupCommit(db);
    const first = checkSubmission(body(variant(1)), { now: NOW });
    const settled: BatchOutcome[] = [];
    // The same submission twice: the second is a duplicate of the first, stored in the same batch.
    commit([first, checkSubmission(body(variant(2)), { now: NOW }), first], settled);
    expect(settled.map((s) => (s instanceof Error ? 'error' : s.duplicate))).toEqual([false, false, true]);
    expect(resultCounter(db)()).toBe(2);
  });

  it('throws when the transaction as a whole fails, and stores nothing of the batch', () => {
    const db = tempDb();
    const commit = groupCommit(db);
    const ok = checkSubmission(body(variant(1)), { now: NOW });
    // A second connection holds the write lock: IMMEDIATE cannot take it (busy_timeout cut short).
    const other = openDatabase(db.path);
    other.sqlite.pragma('busy_timeout = 0');
    db.sqlite.pragma('busy_timeout = 0');
    other.sqlite.prepare('BEGIN IMMEDIATE').run();
    try {
      expect(() => commit([ok], [])).toThrow(/locked|busy/i);
    } finally {
      other.sqlite.prepare('ROLLBACK').run();
      other.close();
    }
    expect(resultCounter(db)()).toBe(0);
  });
});

describe('copyDatabase and inReadTransaction', () => {
  it('copy the database as one read sees it while another connection writes', async () => {
    const db = tempDb();
    ingest(db, body(variant(1)), { now: NOW });
    const reader = openDatabase(db.path, { readonly: true });
    const copy = `${tempPath()}.copy`;
    try {
      const seen = await inReadTransaction(reader, async () => {
        const before = listedResultCount(reader);
        // Written after the read began: neither the count nor the copy may see it.
        ingest(db, body(variant(2)), { now: NOW });
        await copyDatabase(reader, copy, 1);
        return { before, after: listedResultCount(reader) };
      });
      expect(seen).toEqual({ before: 1, after: 1 });
      expect(reader.sqlite.inTransaction).toBe(false);
    } finally {
      reader.close();
    }
    expect(existsSync(copy)).toBe(true);
    const copied = openDatabase(copy, { readonly: true });
    try {
      expect(listedResultCount(copied)).toBe(1);
    } finally {
      copied.close();
    }
    expect(listedResultCount(db)).toBe(2);
  });
});
