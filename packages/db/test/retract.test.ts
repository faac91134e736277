import { describe, expect, it } from 'vitest';
import {
  count,
  findCells,
  getEnvelope,
  ingest,
  listResults,
  RetractError,
  retract,
  signRetraction,
  verifyRetraction,
} from '../src/index.js';
import { body, key, NOW, otherKey, otherRun, tempDb, variant } from './fixtures.js';

function refused(fn: () => unknown): RetractError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(RetractError);
    return e as RetractError;
  }
  throw new Error('expected a RetractError');
}

function twoResults() {
  const db = tempDb();
  const mine = ingest(db, body(variant(1)), { now: NOW }).id;
  const theirs = ingest(db, body(otherRun(2), otherKey), { now: NOW }).id;
  return { db, mine, theirs };
}

describe('retract', () => {
  it('signs and verifies a request', () => {
    const req = signRetraction('a'.repeat(64), key.privateKeyPem, NOW);
    expect(req).toMatchObject({
      schema: 'redis-benchdb/retract.v2',
      requestedAt: NOW.toISOString(),
      // Signed for no service, for an hour.
      origin: 'local:',
      expiresAt: new Date(NOW.getTime() + 3600_000).toISOString(),
    });
    expect(verifyRetraction(req)).toMatchObject({ ok: true });
    expect(verifyRetraction({ ...req, resultId: 'b'.repeat(64) })).toMatchObject({
      ok: false,
      code: 'BAD_SIGNATURE',
    });
    expect(verifyRetraction({ ...req, extra: 1 })).toMatchObject({ ok: false, code: 'MALFORMED_REQUEST' });
    expect(verifyRetraction('nope')).toMatchObject({ ok: false, code: 'MALFORMED_REQUEST' });
  });

  it('unlists its own result, keeps the row and the proof, and is idempotent', () => {
    const { db, mine, theirs } = twoResults();
    const req = signRetraction(mine, key.privateKeyPem, NOW);
    const later = new Date(NOW.getTime() + 60_000);
    expect(retract(db, req, { now: later })).toEqual({
      id: mine,
      retractedAt: later.toISOString(),
      alreadyRetracted: false,
    });
    expect(listResults(db).map((r) => r.id)).toEqual([theirs]);
    expect(listResults(db, { includeRetracted: true })).toHaveLength(2);
    expect(findCells(db).every((c) => c.resultId === theirs)).toBe(true);
    expect(getEnvelope(db, mine)?.retractedAt).toBe(later.toISOString());
    const stored = db.sqlite.prepare('SELECT retraction FROM results WHERE id = ?').get(mine) as {
      retraction: string;
    };
    expect(JSON.parse(stored.retraction)).toEqual(req);
    // Again: nothing changes, the first time stands.
    expect(retract(db, req, { now: new Date(later.getTime() + 60_000) })).toEqual({
      id: mine,
      retractedAt: later.toISOString(),
      alreadyRetracted: true,
    });
    expect(count(db).retracted).toBe(1);
  });

  it('stays retracted when the public envelope is submitted again', () => {
    const db = tempDb();
    const sent = body(variant(1));
    const { id } = ingest(db, sent, { now: NOW });
    retract(db, signRetraction(id, key.privateKeyPem, NOW), { now: NOW });
    expect(ingest(db, sent, { now: NOW })).toMatchObject({ id, duplicate: true });
    expect(listResults(db)).toEqual([]);
  });

  it("refuses someone else's key with 403", () => {
    const { db, theirs } = twoResults();
    const e = refused(() => retract(db, signRetraction(theirs, key.privateKeyPem, NOW), { now: NOW }));
    expect({ code: e.code, status: e.status }).toEqual({ code: 'NOT_YOUR_RESULT', status: 403 });
    expect(count(db).retracted).toBe(0);
  });

  it('answers 404 for an unknown id, 422 for a stale or forged request, 400 for a malformed one', () => {
    const { db, mine } = twoResults();
    const unknown = refused(() =>
      retract(db, signRetraction('0'.repeat(64), key.privateKeyPem, NOW), { now: NOW }),
    );
    expect({ code: unknown.code, status: unknown.status }).toEqual({ code: 'NOT_FOUND', status: 404 });
    const old = signRetraction(mine, key.privateKeyPem, new Date(NOW.getTime() - 25 * 3600 * 1000));
    expect(refused(() => retract(db, old, { now: NOW })).code).toBe('STALE_REQUEST');
    const forged = {
      ...signRetraction(mine, otherKey.privateKeyPem, NOW),
      publicKey: signRetraction(mine, key.privateKeyPem, NOW).publicKey,
    };
    expect(refused(() => retract(db, forged, { now: NOW })).code).toBe('BAD_SIGNATURE');
    const malformed = refused(() => retract(db, { resultId: mine }, { now: NOW }));
    expect({ code: malformed.code, status: malformed.status }).toEqual({
      code: 'MALFORMED_REQUEST',
      status: 400,
    });
    expect(count(db).retracted).toBe(0);
  });

  it('is refused by a service of another origin, once expired, and when it would live past a day', () => {
    const { db, mine } = twoResults();
    const forA = signRetraction(mine, key.privateKeyPem, NOW, { origin: 'https://a.example.org/api' });
    expect(forA.origin).toBe('https://a.example.org');
    const elsewhere = refused(() =>
      retract(db, forA, { now: NOW, origins: ['https://b.example.org', 'http://127.0.0.1:8080'] }),
    );
    expect({ code: elsewhere.code, status: elsewhere.status }).toEqual({
      code: 'WRONG_SERVICE',
      status: 422,
    });
    expect(elsewhere.message).toContain('https://a.example.org');
    const later = new Date(NOW.getTime() + 3600_000 + 1);
    expect(refused(() => retract(db, forA, { now: later, origins: ['https://a.example.org'] })).code).toBe(
      'EXPIRED_REQUEST',
    );
    const tooLong = signRetraction(mine, key.privateKeyPem, NOW, {
      origin: 'https://a.example.org',
      expiresAt: new Date(NOW.getTime() + 25 * 3600_000),
    });
    expect(refused(() => retract(db, tooLong, { now: NOW })).message).toMatch(/at most a day/);
    expect(count(db).retracted).toBe(0);
    expect(retract(db, forA, { now: NOW, origins: ['https://a.example.org'] }).alreadyRetracted).toBe(false);
  });
});
