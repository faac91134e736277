import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  applyMigrations,
  type BenchDb,
  IngestError,
  ingest,
  listRunGroup,
  MIGRATIONS,
  retract,
  signRetraction,
} from '../src/index.js';
import { body, envelope, key, NOW, otherKey, otherRun, tempDb, tempPath, variant } from './fixtures.js';

// Issue 39 item 1: a run group belongs to the key that ran it (src/ingest/run-group.ts, migration 12).

const GROUP = '4ac7212694714aa5';

const INSERT = `INSERT INTO results (id, kind, schema, envelope, document, key_fingerprint, received_at,
                                     run_group_id, run_group_label, run_group_index)
                VALUES (?, 'signed', 'redis-benchdb/result.v1', ?, ?, ?, ?, ?, ?, ?)`;

function member(n: number, index: number, size = 3) {
  return otherRun(n, (r) => {
    r.runGroup = { id: GROUP, index, size, label: `member ${index}`, varies: ['server'] };
  });
}

function refused(db: BenchDb, text: string): IngestError {
  const before = listRunGroup(db, GROUP).map((r) => r.id);
  let error: unknown;
  try {
    ingest(db, text, { now: NOW });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(IngestError);
  expect(listRunGroup(db, GROUP).map((r) => r.id)).toEqual(before);
  return error as IngestError;
}

describe('a run group belongs to its signing key', () => {
  it("refuses another key's result naming a stored group, with RUN_GROUP_NOT_YOURS, and stores nothing", () => {
    const db = tempDb();
    ingest(db, body(member(1, 0)), { now: NOW });
    ingest(db, body(member(2, 1)), { now: NOW });
    const e = refused(db, body(member(3, 2), otherKey));
    expect({ code: e.code, status: e.status }).toEqual({ code: 'RUN_GROUP_NOT_YOURS', status: 422 });
    expect(e.message).toContain(`run group ${GROUP} belongs to the key`);
    expect(e.message).toContain('the 2 members stored');
    expect(e.message).toContain('leave runGroup out');
    expect(db.sqlite.prepare('SELECT count(*) AS n FROM results').get()).toEqual({ n: 2 });
    // Its own key completes the group.
    ingest(db, body(member(3, 2)), { now: NOW });
    expect(listRunGroup(db, GROUP).map((r) => r.runGroupIndex)).toEqual([0, 1, 2]);
  });

  it("a group its owner retracted is still its owner's: the id is not freed for another key", () => {
    const db = tempDb();
    const id = ingest(db, body(member(1, 0)), { now: NOW }).id;
    retract(db, signRetraction(id, key.privateKeyPem, NOW), { now: NOW });
    expect(refused(db, body(member(2, 0), otherKey)).code).toBe('RUN_GROUP_NOT_YOURS');
  });

  it('refuses a member whose size or position contradicts the stored members (RUN_GROUP_MISMATCH)', () => {
    const db = tempDb();
    const first = ingest(db, body(member(1, 0)), { now: NOW }).id;
    const size = refused(db, body(member(2, 1, 4)));
    expect({ code: size.code, status: size.status }).toEqual({ code: 'RUN_GROUP_MISMATCH', status: 422 });
    expect(size.message).toContain(`runGroup.size 4 contradicts run group ${GROUP}`);
    expect(size.message).toContain('says size 3');
    const index = refused(db, body(member(3, 0)));
    expect(index.code).toBe('RUN_GROUP_MISMATCH');
    expect(index.message).toContain(
      `runGroup.index 0 of run group ${GROUP} is held by the stored result ${first}`,
    );
    // A retracted member's place may be taken by the same key's new one.
    retract(db, signRetraction(first, key.privateKeyPem, NOW), { now: NOW });
    expect(ingest(db, body(member(3, 0)), { now: NOW }).duplicate).toBe(false);
  });

  it('the same envelope again is still a duplicate, not a contradiction of itself', () => {
    const db = tempDb();
    const text = body(member(1, 0));
    ingest(db, text, { now: NOW });
    expect(ingest(db, text, { now: NOW }).duplicate).toBe(true);
  });

  it('migration 12 takes out of a group the results another key signed into it, and a trigger keeps it so', () => {
    const path = tempPath();
    // A database at version 11, as issue 39's forgery left it: key's group, and otherKey's result in it.
    const raw = new Database(path);
    applyMigrations(raw, MIGRATIONS.slice(0, 11));
    const insert = raw.prepare(INSERT);
    const rows = [
      ['own-0', member(1, 0), key, '2025-03-06T10:00:00.000Z'],
      ['forged', member(2, 2), otherKey, '2025-03-06T10:30:00.000Z'],
      ['own-1', member(3, 1), key, '2025-03-06T11:00:00.000Z'],
    ] as const;
    for (const [id, r, k, at] of rows) {
      const env = envelope(r, k);
      insert.run(
        id,
        JSON.stringify(env),
        env.payload,
        env.keyFingerprint,
        at,
        GROUP,
        `member`,
        r.runGroup!.index,
      );
    }
    raw.close();
    const db = tempDb(path);
    expect(listRunGroup(db, GROUP).map((r) => r.id)).toEqual(['own-0', 'own-1']);
    const forged = db.sqlite.prepare("SELECT run_group_id FROM results WHERE id = 'forged'").get();
    expect(forged).toEqual({ run_group_id: null });
    expect(() =>
      db.sqlite.prepare("UPDATE results SET run_group_id = ? WHERE id = 'forged'").run(GROUP),
    ).toThrow('RUN_GROUP_NOT_YOURS');
    // Whatever writes the table, no other key's row joins the group.
    const env = envelope(variant(9), otherKey);
    const row = ['x', JSON.stringify(env), env.payload, env.keyFingerprint, NOW.toISOString(), GROUP, 'x', 5];
    expect(() => db.sqlite.prepare(INSERT).run(...row)).toThrow('RUN_GROUP_NOT_YOURS');
  });
});
