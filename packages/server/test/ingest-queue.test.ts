import { count, IngestError, openDatabase } from '@redis-benchdb/db';
import { afterEach, describe, expect, it } from 'vitest';
import { IngestQueue, MAX_BATCH } from '../src/index.js';
import { body, submissions, tempDbPath, variant } from './fixtures.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function tempDb(path = tempDbPath()) {
  const db = openDatabase(path);
  open.push(db);
  return db;
}

describe('IngestQueue (group commit)', () => {
  it('answers each submission of one batch on its own: stored, duplicate or refused', async () => {
    const db = tempDb();
    const queue = new IngestQueue(db);
    const same = Buffer.from(body(variant(1)));
    // Submitted in one tick: one batch, one transaction.
    const settled = await Promise.allSettled(
      [same, Buffer.from('{"broken'), same, Buffer.from(body(variant(2)))].map((b) => queue.submit(b)),
    );
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const [first, broken, again, other] = settled;
    expect(first).toMatchObject({ value: { duplicate: false } });
    expect(again).toMatchObject({ value: { duplicate: true } });
    expect((again as PromiseFulfilledResult<{ id: string }>).value.id).toBe(
      (first as PromiseFulfilledResult<{ id: string }>).value.id,
    );
    expect(other).toMatchObject({ value: { duplicate: false } });
    expect((broken as PromiseRejectedResult).reason).toBeInstanceOf(IngestError);
    expect(count(db).results).toBe(2);
  });

  it(`splits more than ${MAX_BATCH} waiting submissions into batches, storing all`, async () => {
    const db = tempDb();
    const queue = new IngestQueue(db);
    const outcomes = await Promise.all(
      submissions(MAX_BATCH * 2 + 1).map((b) => queue.submit(Buffer.from(b))),
    );
    expect(outcomes.every((o) => !o.duplicate)).toBe(true);
    expect(count(db).results).toBe(MAX_BATCH * 2 + 1);
    expect(queue.pending).toBe(0);
  });

  it('answers none as stored when the batch cannot commit', async () => {
    const path = tempDbPath();
    const db = tempDb(path);
    db.sqlite.pragma('busy_timeout = 50');
    // Another connection holds the write lock (as a long `db:build` might): the batch cannot begin.
    const other = tempDb(path);
    other.sqlite.exec('BEGIN IMMEDIATE');
    const queue = new IngestQueue(db);
    const settled = await Promise.allSettled(submissions(3).map((b) => queue.submit(Buffer.from(b))));
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((settled[0] as PromiseRejectedResult).reason)).toMatch(/locked|busy/i);
    other.sqlite.exec('ROLLBACK');
    expect(count(db).results).toBe(0);
    await queue.submit(Buffer.from(submissions(1)[0]!));
    expect(count(db).results).toBe(1);
  });
});
