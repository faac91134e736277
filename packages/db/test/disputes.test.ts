import { legacyBody, reboundBody } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import {
  cellsByWorkload,
  cohort,
  disputesOf,
  ingest,
  iterateWorkloadCells,
  retract,
  signRetraction,
} from '../src/index.js';
import {
  body,
  key,
  NOW,
  otherKey,
  signPayload,
  suiteRun,
  type tempDb,
  variant,
  vouchedDb,
} from './fixtures.js';

// Issue 30 item 1: a signed file seen before its owner submits it (a shared file, a CI artifact)
// must not give its measurements, their rank or the right to retract them to whoever sends a copy.

const SET_FP = suiteRun().cells[0]!.workloadFingerprint;
const ranked = (db: ReturnType<typeof tempDb>) => cohort(db, SET_FP).members.map((m) => m.resultId);
const explorer = (db: ReturnType<typeof tempDb>) => [
  ...new Set(cellsByWorkload(db, [SET_FP]).map((c) => c.resultId)),
];
const comparable = (db: ReturnType<typeof tempDb>) => [...iterateWorkloadCells(db)].map((c) => c.resultId);
const refusedWith = (code: string, status: number) => expect.objectContaining({ code, status });

describe('a result binds the key that signed it', () => {
  it("refuses the owner's file re-signed by another key as it is (KEY_MISMATCH, 422), writing nothing", () => {
    const db = vouchedDb();
    const owners = body(variant(1));
    const copy = signPayload(JSON.parse(owners).payload, otherKey);
    expect(() => ingest(db, copy, { now: NOW })).toThrow(refusedWith('KEY_MISMATCH', 422));
    expect(() => ingest(db, copy, { now: NOW })).toThrow('is bound to the key');
    // The owner is then answered 201, as the only holder.
    const out = ingest(db, owners, { now: NOW });
    expect(out).toMatchObject({ duplicate: false });
    expect(out.disputedWith).toBeUndefined();
    expect(ranked(db)).toEqual([out.id]);
  });

  for (const order of ['copy first', 'owner first'] as const)
    it(`a copy re-bound to another key, ${order}: both stored, both disputed, neither ranked nor retractable by the other`, () => {
      const db = vouchedDb();
      const owners = body(variant(1));
      const copy = reboundBody(owners, otherKey);
      const [a, b] = order === 'copy first' ? [copy, owners] : [owners, copy];
      const first = ingest(db, a, { now: NOW });
      expect(ranked(db)).toEqual([first.id]);
      const second = ingest(db, b, { now: NOW });
      // The later one is stored, never refused nor answered "duplicate", and told why it is not ranked.
      expect(second).toMatchObject({ duplicate: false, disputedWith: [first.id] });
      expect(first.id).not.toBe(second.id);
      expect(disputesOf(db, first.id).map((d) => d.otherResultId)).toEqual([second.id]);
      expect(disputesOf(db, second.id).map((d) => d.otherResultId)).toEqual([first.id]);
      expect(ranked(db)).toEqual([]);
      expect(explorer(db)).toEqual([]);
      expect(comparable(db)).toEqual([]);

      const ownerId = order === 'copy first' ? second.id : first.id;
      const copyId = order === 'copy first' ? first.id : second.id;
      // Neither key retracts the other's result.
      expect(() => retract(db, signRetraction(ownerId, otherKey.privateKeyPem, NOW), { now: NOW })).toThrow(
        refusedWith('NOT_YOUR_RESULT', 403),
      );
      expect(() => retract(db, signRetraction(copyId, key.privateKeyPem, NOW), { now: NOW })).toThrow(
        refusedWith('NOT_YOUR_RESULT', 403),
      );
      // Either may retract its own, and that does not hand the measurements to the other.
      retract(db, signRetraction(ownerId, key.privateKeyPem, NOW), { now: NOW });
      expect(ranked(db)).toEqual([]);
      expect(disputesOf(db, copyId)).toHaveLength(1);
    });

  it("an owner's retraction does not free its measurements for a copier", () => {
    const db = vouchedDb();
    const owners = body(variant(1));
    const id = ingest(db, owners, { now: NOW }).id;
    retract(db, signRetraction(id, key.privateKeyPem, NOW), { now: NOW });
    const copy = ingest(db, reboundBody(owners, otherKey), { now: NOW });
    expect(copy.disputedWith).toEqual([id]);
    expect(ranked(db)).toEqual([]);
  });

  it("the owner's own copies stay copies, not disputes", () => {
    const db = vouchedDb();
    const first = ingest(db, body(variant(1)), { now: NOW }).id;
    const again = ingest(db, body(variant(2)), { now: NOW });
    expect(again).toMatchObject({ copyOf: first });
    expect(again.disputedWith).toBeUndefined();
    expect(disputesOf(db, first)).toEqual([]);
  });
});

describe('a result signed before the binding (no keyFingerprint in its payload)', () => {
  it('still ingests, by the key that signed it', () => {
    const db = vouchedDb();
    const out = ingest(db, legacyBody(variant(1)), { now: NOW });
    expect(out).toMatchObject({ duplicate: false });
    expect(ranked(db)).toEqual([out.id]);
  });

  it('the same payload from a second key: 409 DISPUTED, claim recorded, out of ranks, retractable by neither', () => {
    const db = vouchedDb();
    const id = ingest(db, legacyBody(variant(1), otherKey), { now: NOW }).id;
    const owners = legacyBody(variant(1), key);
    expect(() => ingest(db, owners, { now: NOW })).toThrow(refusedWith('DISPUTED', 409));
    expect(() => ingest(db, owners, { now: NOW })).toThrow(
      `result ${id} was stored before, signed by the key`,
    );
    expect(disputesOf(db, id)).toEqual([
      expect.objectContaining({
        resultId: id,
        otherResultId: id,
        keyFingerprint: JSON.parse(owners).keyFingerprint,
      }),
    ]);
    expect(ranked(db)).toEqual([]);
    // The key it was stored under cannot unlist it: that would take it from the other claimant too.
    expect(() => retract(db, signRetraction(id, otherKey.privateKeyPem, NOW), { now: NOW })).toThrow(
      refusedWith('DISPUTED', 409),
    );
    expect(() => retract(db, signRetraction(id, key.privateKeyPem, NOW), { now: NOW })).toThrow(
      refusedWith('NOT_YOUR_RESULT', 403),
    );
    // The first key sending its own file again is still a duplicate, nothing more.
    expect(ingest(db, legacyBody(variant(1), otherKey), { now: NOW })).toMatchObject({ id, duplicate: true });
  });
});
