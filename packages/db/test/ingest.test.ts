import { CLOCK_SKEW_MS, canonicalJson, type ResultV1 } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import {
  type BenchDb,
  contentId,
  count,
  getEnvelope,
  IngestError,
  ingest,
  integrityCheck,
  listResults,
  readDocument,
} from '../src/index.js';
import { body, envelope, NOW, otherKey, signPayload, suiteRun, tempDb, variant } from './fixtures.js';

/** Ingest, expect a refusal with this code and status, and expect the database untouched. */
function expectRefused(db: BenchDb, input: string | Buffer, code: string, status: number): IngestError {
  const before = count(db);
  let error: unknown;
  try {
    ingest(db, input, { now: NOW });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(IngestError);
  const e = error as IngestError;
  expect({ code: e.code, status: e.status }, e.message).toEqual({ code, status });
  expect(count(db)).toEqual(before);
  return e;
}

/** A validly signed payload: the example's canonical JSON with one edit to the text. */
function resignedWith(edit: (payload: string) => string): string {
  const payload = canonicalJson(suiteRun());
  const changed = edit(payload);
  expect(changed).not.toBe(payload);
  return signPayload(changed);
}

describe('ingest', () => {
  it('stores a signed result, and gives back the envelope it verified in canonical form', () => {
    const db = tempDb();
    const sent = body(suiteRun());
    const out = ingest(db, sent, { now: NOW });
    const env = JSON.parse(sent) as { payload: string };
    expect(out).toEqual({ id: contentId(env.payload), duplicate: false, pagePath: `/results/${out.id}/` });
    expect(out.id).toMatch(/^[0-9a-f]{64}$/);
    expect(getEnvelope(db, out.id)).toEqual({ envelope: canonicalJson(JSON.parse(sent)), retractedAt: null });
    expect(count(db)).toEqual({ results: 1, retracted: 0, cells: 2, warnings: 1 });
    const row = db.sqlite.prepare('SELECT * FROM results WHERE id = ?').get(out.id) as Record<
      string,
      unknown
    >;
    // The envelope is stored once (result_envelopes); its document is read out of it.
    expect(readDocument(db, out.id)).toBe(env.payload);
    expect(row).toMatchObject({
      kind: 'signed',
      envelope: '',
      document: '',
      key_fingerprint: envelope(suiteRun()).keyFingerprint,
      received_at: NOW.toISOString(),
      server_product: 'redis',
      server_version_major: 7,
      server_version_minor: 4,
      virtualization_kind: 'bare-metal',
      persistence_on: 0,
      link_kind: 'tcp-loopback',
      warning_codes: 'SAME_HOST',
      retracted_at: null,
    });
    expect(integrityCheck(db)).toEqual(['ok']);
  });

  it('takes a Buffer as well as a string', () => {
    const db = tempDb();
    const sent = body(variant(1));
    const { id } = ingest(db, Buffer.from(sent, 'utf8'), { now: NOW });
    expect(getEnvelope(db, id)?.envelope).toBe(canonicalJson(JSON.parse(sent)));
  });

  it('answers a second submission of the same result with the same id, writing nothing', () => {
    const db = tempDb();
    const sent = body(suiteRun());
    const first = ingest(db, sent, { now: NOW });
    const before = count(db);
    const again = ingest(db, sent, { now: NOW });
    expect(again).toEqual({ ...first, duplicate: true });
    // The same payload in another wrapping (whitespace) is the same result.
    expect(ingest(db, JSON.stringify(JSON.parse(sent)), { now: NOW })).toEqual({ ...first, duplicate: true });
    expect(count(db)).toEqual(before);
    expect(getEnvelope(db, first.id)?.envelope).toBe(canonicalJson(JSON.parse(sent)));
  });

  it('refuses malformed JSON with 400', () => {
    const db = tempDb();
    ingest(db, body(variant(1)), { now: NOW });
    expectRefused(db, '{"schema": "redis-benchdb/envelope.v1",', 'MALFORMED_JSON', 400);
    expectRefused(db, Buffer.from([0x7b, 0xff, 0x7d]), 'MALFORMED_JSON', 400);
  });

  it('refuses a document that is not an envelope.v1', () => {
    const db = tempDb();
    const bare = expectRefused(db, JSON.stringify(suiteRun()), 'UNSUPPORTED_SCHEMA', 422);
    expect(bare.message).toContain('unsigned result');
    const missing = { ...envelope(suiteRun()) } as Partial<ReturnType<typeof envelope>>;
    delete missing.signature;
    const e = expectRefused(db, JSON.stringify(missing), 'INVALID_ENVELOPE', 422);
    expect(e.message).toContain('/signature');
    expectRefused(db, '[1, 2]', 'INVALID_ENVELOPE', 422);
    expectRefused(db, JSON.stringify({ ...envelope(suiteRun()), schema: 5 }), 'INVALID_ENVELOPE', 422);
    // Signed as sent, but not canonical: one result would have many ids.
    const loose = expectRefused(
      db,
      signPayload(JSON.stringify(suiteRun(), null, 1)),
      'INVALID_ENVELOPE',
      422,
    );
    expect(loose.message).toContain('canonical');
  });

  it('refuses an unknown schema version, naming it and the supported ones', () => {
    const db = tempDb();
    const v2 = { ...envelope(suiteRun()), schema: 'redis-benchdb/envelope.v2' };
    const e = expectRefused(db, JSON.stringify(v2), 'UNSUPPORTED_SCHEMA', 422);
    expect(e.message).toContain('"redis-benchdb/envelope.v2"');
    expect(e.message).toContain('redis-benchdb/envelope.v1');
    // A signed payload of a result version this code does not know.
    const inner = resignedWith((p) => p.replace('"redis-benchdb/result.v1"', '"redis-benchdb/result.v2"'));
    const r = expectRefused(db, inner, 'UNSUPPORTED_SCHEMA', 422);
    expect(r.message).toContain('"redis-benchdb/result.v2"');
    expect(r.message).toContain('redis-benchdb/result.v1');
  });

  it('refuses a bad signature and a tampered byte', () => {
    const db = tempDb();
    const env = envelope(suiteRun());
    const otherSig = { ...env, signature: envelope(suiteRun(), otherKey).signature };
    expectRefused(db, JSON.stringify(otherSig), 'BAD_SIGNATURE', 422);
    const tampered = { ...env, payload: env.payload.replace('"median":131204', '"median":131205') };
    expect(tampered.payload).not.toBe(env.payload);
    expectRefused(db, JSON.stringify(tampered), 'BAD_SIGNATURE', 422);
    const wrongKey = { ...env, publicKey: envelope(suiteRun(), otherKey).publicKey };
    expectRefused(db, JSON.stringify(wrongKey), 'BAD_SIGNATURE', 422);
  });

  it('refuses a signed result that breaks the result schema, naming the path', () => {
    const db = tempDb();
    const sent = resignedWith((p) => p.replace('"engineMode":"lean-resp"', '"engineMode":"turbo"'));
    const e = expectRefused(db, sent, 'INVALID_RESULT', 422);
    expect(e.message).toContain('/runner/engineMode');
  });

  it('refuses a non-finite number even when it is signed', () => {
    const db = tempDb();
    const sent = resignedWith((p) => p.replace('"median":131204', '"median":1e999'));
    const e = expectRefused(db, sent, 'IMPLAUSIBLE', 422);
    expect(e.message).toContain('/cells/1/opsPerSec/median');
    expect(e.message).toContain('Infinity');
  });

  it.each<[string, (r: ResultV1) => void, string]>([
    [
      'ops/s far above the Little law bound',
      (r) => {
        const c = r.cells[1]!;
        c.opsPerSec = { median: 5_000_000, ci95Low: 4_900_000, ci95High: 5_100_000, cv: 0.01 };
      },
      "/cells/1/opsPerSec/median: 5000000 ops/s is more than 2x what 50 connections × pipeline 1 can carry at the mean latency its histogram records, 377.73 µs (Little's law: at most 132370 ops/s)",
    ],
    [
      'completed > requested',
      (r) => {
        const t = r.cells[0]!.trials[0]!;
        t.requested = 1000;
      },
      '/cells/0/trials/0/completed: 224681 is more than the 1000 requested',
    ],
    [
      'p99 < p50',
      (r) => {
        r.cells[0]!.latencyUs.p99Us = 100;
      },
      '/cells/0/latencyUs/p99Us: 100 is below p95Us',
    ],
    [
      'a histogram that does not hold latencyUs.count values',
      (r) => {
        r.cells[0]!.latencyUs.count += 1;
      },
      '/cells/0/histogram: holds 670459 values but latencyUs.count is 670460',
    ],
    [
      'trialCount other than the trials',
      (r) => {
        r.cells[0]!.trialCount = 5;
      },
      '/cells/0/trialCount: 5 but the cell has 3 trials',
    ],
    [
      'a finish before the start',
      (r) => {
        r.finishedAt = '2025-03-04T10:00:00Z';
      },
      '/finishedAt: 2025-03-04T10:00:00Z is before startedAt',
    ],
  ])('refuses implausible figures: %s', (_name, edit, message) => {
    const db = tempDb();
    ingest(db, body(variant(1)), { now: NOW });
    const e = expectRefused(db, body(variant(2, edit)), 'IMPLAUSIBLE', 422);
    expect(e.message).toContain(message);
  });

  // Issue 39 item 4: a run dated ahead would head "Newest results" with tomorrow's date.
  it('refuses a run that ended after it was received, beyond 5 minutes of clock skew (FINISHED_IN_FUTURE)', () => {
    const db = tempDb();
    const endingAt = (n: number, aheadMs: number) =>
      body(
        variant(n, (r) => {
          r.startedAt = new Date(NOW.getTime() + aheadMs - 60_000).toISOString();
          r.finishedAt = new Date(NOW.getTime() + aheadMs).toISOString();
        }),
      );
    const e = expectRefused(db, endingAt(1, 23 * 3600_000), 'FINISHED_IN_FUTURE', 422);
    expect(e.message).toBe(
      "refused: finishedAt 2025-03-07T11:00:00.000Z is 23.0 h after the service received the result (2025-03-06T12:00:00.000Z); a run cannot end after it was received, allowing 5 minutes of clock skew. Set the runner machine's clock right (e.g. with NTP) and run again",
    );
    expect(expectRefused(db, endingAt(2, 6 * 60_000), 'FINISHED_IN_FUTURE', 422).message).toContain(
      'is 6 min after',
    );
    // A clock a few minutes fast is let through.
    expect(ingest(db, endingAt(3, 4 * 60_000), { now: NOW }).duplicate).toBe(false);
    expect(CLOCK_SKEW_MS).toBe(5 * 60_000);
  });

  // How fast is pnpm bench:ingest's question (docs/BENCHMARKS.md); here, that a thousand in a row all land.
  it('ingests 1,000 results in a loop, each stored once', () => {
    const db = tempDb();
    const bodies = Array.from({ length: 1000 }, (_, i) => body(variant(i)));
    for (const b of bodies) ingest(db, b, { now: NOW });
    expect(count(db)).toEqual({ results: 1000, retracted: 0, cells: 2000, warnings: 1000 });
    expect(listResults(db, { limit: 5 })).toHaveLength(5);
  });
});
