// Issue 11, rows 1-5: what a hostile corpus sent, refused by ingest() with nothing written.

import {
  duplicateFingerprintEnvelope,
  duplicateKeyPayloadEnvelope,
  duplicatePayloadEnvelope,
  nestedPayloadEnvelope,
} from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import { type BenchDb, count, IngestError, ingest } from '../src/index.js';
import { body, NOW, tempDb, variant } from './fixtures.js';
import {
  deflateBombResult,
  emptyRunResult,
  littleLawDodgeResult,
  manyHistogramsResult,
} from './support/hostile-results.js';

function expectRefused(db: BenchDb, input: string, code: string, status: number): IngestError {
  const before = count(db);
  let error: unknown;
  try {
    ingest(db, input, { now: NOW });
  } catch (e) {
    error = e;
  }
  expect(error, 'ingest() accepted it').toBeInstanceOf(IngestError);
  const e = error as IngestError;
  expect({ code: e.code, status: e.status }, e.message).toEqual({ code, status });
  expect(count(db)).toEqual(before);
  return e;
}

describe('ingest refuses the hostile corpus of issue 11', () => {
  it('row 1: a histogram declaring a run of 2^33 empty buckets, at once', () => {
    const db = tempDb();
    ingest(db, body(variant(1)), { now: NOW });
    const e = expectRefused(db, body(emptyRunResult(33)), 'INVALID_HISTOGRAM', 422);
    expect(e.message).toBe(
      'invalid histogram: /cells/0/histogram (cell 0 "SET"): histogram refused: it declares a run of 8589934592 empty buckets from bucket 0, but its range (1 to 3600000000, 3 significant digits) has 23552 buckets',
    );
  });

  it('row 1: the same run of 2^29 after counts that match the summary', () => {
    const db = tempDb();
    const e = expectRefused(db, body(emptyRunResult(29, true)), 'INVALID_HISTOGRAM', 422);
    expect(e.message).toContain('a run of 536870912 empty buckets from bucket 2');
  });

  it('row 2: a deflate bomb of 1 GiB of zeros', () => {
    const db = tempDb();
    const sent = body(deflateBombResult(1024 ** 3));
    expect(sent.length).toBeLessThan(4 * 1024 * 1024); // under the service's body limit
    const e = expectRefused(db, sent, 'INVALID_HISTOGRAM', 422);
    expect(e.message).toContain(
      '/cells/0/histogram (cell 0 "SET"): histogram refused: it inflates to more than',
    );
  });

  it('a body of many small histograms that together inflate past 8 MiB', () => {
    const db = tempDb();
    const sent = body(manyHistogramsResult(80));
    expect(sent.length).toBeLessThan(4 * 1024 * 1024);
    const e = expectRefused(db, sent, 'INVALID_HISTOGRAM', 422);
    expect(e.message).toMatch(
      /\/cells\/0\/trials\/\d+\/histogram \(cell 0 "SET", trial \d+\): the result's histograms inflate to more than 8388608 bytes in all/,
    );
  });

  it("row 3: 49 million ops/s on one connection at pipeline 1, minUs 0 dodging Little's law", () => {
    const db = tempDb();
    const e = expectRefused(db, body(littleLawDodgeResult()), 'IMPLAUSIBLE', 422);
    expect(e.message).toContain(
      '/cells/0/opsPerSec/median: 49000000 ops/s is more than 2x what 1 connections × pipeline 1 can carry at the mean latency its histogram records',
    );
    expect(e.message).toContain('/cells/0/latencyUs/minUs: 0 but its histogram (histogram) says 24');
  });

  it('row 4: a signed payload nested 100,000 deep', () => {
    const db = tempDb();
    const e = expectRefused(db, nestedPayloadEnvelope(100_000), 'TOO_DEEP', 400);
    expect(e.message).toContain('the payload nests objects and arrays more than 32 deep (at /cells/0/0/0');
    // Nesting in the envelope itself is stopped before JSON.parse reads it.
    expectRefused(db, `{"schema":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, 'TOO_DEEP', 400);
  });

  it('row 5: two payload keys, two keyFingerprint keys, a duplicate inside the payload', () => {
    const db = tempDb();
    const e = expectRefused(db, duplicatePayloadEnvelope(), 'DUPLICATE_KEY', 400);
    expect(e.message).toContain(
      'the envelope has the key "payload" twice at /payload (spelt "p\\u0061yload" and "payload")',
    );
    expectRefused(db, duplicateFingerprintEnvelope(), 'DUPLICATE_KEY', 400);
    const inner = expectRefused(db, duplicateKeyPayloadEnvelope(), 'DUPLICATE_KEY', 400);
    expect(inner.message).toContain('invalid envelope: the payload has the key "cells" twice at /cells');
  });
});
