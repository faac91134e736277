// Issue 11, rows 1-5, against the real service: each refused with `{error:{code,message}}`, nothing
// stored, and the service still answering. Before the fix, row 1 (2^33) held the service for minutes:
// this file would time out.
import { type BenchDb, count, openDatabase } from '@redis-benchdb/db';
import { canonicalJson } from '@redis-benchdb/result';
import {
  duplicateFingerprintEnvelope,
  duplicatePayloadEnvelope,
  nestedPayloadEnvelope,
} from '@redis-benchdb/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deflateBombResult,
  emptyRunResult,
  littleLawDodgeResult,
} from '../../db/test/support/hostile-results.js';
import { type RunningServer, startServer } from '../dist/index.js';
import { body, post, request, tempDbPath, variant } from './fixtures.js';

let server: RunningServer;
let reader: BenchDb;
let results: string;

beforeAll(async () => {
  const dbPath = tempDbPath();
  server = await startServer({ dbPath });
  reader = openDatabase(dbPath, { readonly: true });
  results = `${server.url}/api/v1/results`;
});

afterAll(async () => {
  reader.close();
  await server.close();
});

async function expectRefused(sent: string, status: number, code: string, says: string) {
  const before = count(reader);
  const reply = await post(results, sent);
  expect({ status: reply.status, code: reply.json.error?.code }, reply.text).toEqual({ status, code });
  expect(Object.keys(reply.json)).toEqual(['error']);
  expect(reply.json.error?.message).toContain(says);
  expect(count(reader)).toEqual(before);
  // Still answering, and nothing of the refused body was kept.
  expect((await request(`${server.url}/api/v1/health`)).status).toBe(200);
}

describe('the service refuses the hostile corpus of issue 11', () => {
  it('stores an honest result first (so "nothing stored" is not an empty database)', async () => {
    expect((await post(results, body(variant(1)))).status).toBe(201);
  });

  it('row 1: a run of 2^33 empty buckets in a 64-character histogram, answered at once', async () => {
    await expectRefused(
      body(emptyRunResult(33)),
      422,
      'INVALID_HISTOGRAM',
      '/cells/0/histogram (cell 0 "SET"): histogram refused: it declares a run of 8589934592 empty buckets',
    );
  });

  it('row 1: a run of 2^29 after counts that match the summary (was stored, 201)', async () => {
    await expectRefused(
      body(emptyRunResult(29, true)),
      422,
      'INVALID_HISTOGRAM',
      'a run of 536870912 empty buckets',
    );
  });

  it('row 2: a deflate bomb, 1 GiB of zeros in a body under 1.5 MB', async () => {
    const sent = body(deflateBombResult(1024 ** 3));
    expect(sent.length).toBeLessThan(1.5e6);
    await expectRefused(
      sent,
      422,
      'INVALID_HISTOGRAM',
      'histogram refused: it inflates to more than 212008 bytes',
    );
  });

  it('row 3: 49 million ops/s on one connection at pipeline 1, with minUs 0 (was stored, 201)', async () => {
    await expectRefused(
      body(littleLawDodgeResult()),
      422,
      'IMPLAUSIBLE',
      '49000000 ops/s is more than 2x what 1 connections × pipeline 1 can carry at the mean latency its histogram records',
    );
  });

  it('row 4: a signed payload nested 100,000 deep (was a 500 from a stack overflow)', async () => {
    await expectRefused(
      nestedPayloadEnvelope(100_000),
      400,
      'TOO_DEEP',
      'nests objects and arrays more than 32 deep',
    );
  });

  it('row 5: two payload keys, or two keyFingerprint keys (were stored byte for byte, 201)', async () => {
    await expectRefused(
      duplicatePayloadEnvelope(variant(5)),
      400,
      'DUPLICATE_KEY',
      'the envelope has the key "payload" twice at /payload (spelt "p\\u0061yload" and "payload")',
    );
    await expectRefused(
      duplicateFingerprintEnvelope(variant(6)),
      400,
      'DUPLICATE_KEY',
      '"keyFingerprint" twice',
    );
  });

  it('serves back exactly the envelope it verified: canonical, one payload', async () => {
    const sent = body(variant(7));
    const reply = await post(results, sent);
    expect(reply.status).toBe(201);
    const got = await request(`${results}/${reply.json.id as string}`);
    expect(got.text).toBe(canonicalJson(JSON.parse(sent)));
  });
});
