import { count, IngestError, ingest, openDatabase } from '@redis-benchdb/db';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError, IngestQueue, MAX_BATCH } from '../dist/index.js';
import { body, submissions, tempDbPath, variant } from './fixtures.js';

const open: { close(): void }[] = [];
const queues: IngestQueue[] = [];
afterEach(async () => {
  await Promise.all(queues.splice(0).map((q) => q.close()));
  for (const db of open.splice(0)) db.close();
});

const CHECKS = { threads: 1, maxQueued: 256, maxQueuedBytes: 32 * 2 ** 20 };

function newQueue(db: ReturnType<typeof openDatabase>, checks = CHECKS): IngestQueue {
  const queue = new IngestQueue(db, checks);
  queues.push(queue);
  return queue;
}

/** Check, then store: what the service's POST /results does with a body (routes/results.ts). */
async function submit(queue: IngestQueue, body: Buffer) {
  const { outcome } = await queue.check(body);
  if (outcome instanceof Error) throw outcome;
  return queue.store(outcome);
}

function tempDb(path = tempDbPath()) {
  const db = openDatabase(path);
  open.push(db);
  return db;
}

describe('IngestQueue (group commit)', () => {
  it('answers each submission of one batch on its own: stored, duplicate or refused', async () => {
    const db = tempDb();
    const queue = newQueue(db);
    const same = Buffer.from(body(variant(1)));
    // Submitted in one tick: checked on the thread one after the other, stored in one or more batches.
    const settled = await Promise.allSettled(
      [same, Buffer.from('{"broken'), same, Buffer.from(body(variant(2)))].map((b) => submit(queue, b)),
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
    const queue = newQueue(db);
    const outcomes = await Promise.all(
      submissions(MAX_BATCH * 2 + 1).map((b) => submit(queue, Buffer.from(b))),
    );
    expect(outcomes.every((o) => !o.duplicate)).toBe(true);
    expect(count(db).results).toBe(MAX_BATCH * 2 + 1);
  });

  it('answers none as stored when the batch cannot commit', async () => {
    const path = tempDbPath();
    const db = tempDb(path);
    db.sqlite.pragma('busy_timeout = 50');
    // Another connection holds the write lock (as a long `db:build` might): the batch cannot begin.
    const other = tempDb(path);
    other.sqlite.exec('BEGIN IMMEDIATE');
    const queue = newQueue(db);
    const settled = await Promise.allSettled(submissions(3).map((b) => submit(queue, Buffer.from(b))));
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((settled[0] as PromiseRejectedResult).reason)).toMatch(/locked|busy/i);
    other.sqlite.exec('ROLLBACK');
    expect(count(db).results).toBe(0);
    await submit(queue, Buffer.from(submissions(1)[0]!));
    expect(count(db).results).toBe(1);
  });
});

describe('IngestQueue checks on worker threads', () => {
  it('refuses with the code, status and message ingest() gives on the event loop', async () => {
    const queue = newQueue(tempDb());
    const tampered = body(variant(3)).replace('rbdb:000003:', 'rbdb:000004:');
    const bodies = ['{"broken', '[[[]]]', tampered, '', '\xff'].map((b) => Buffer.from(b, 'latin1'));
    for (const b of bodies) {
      const direct = (() => {
        try {
          ingest(tempDb(), b);
        } catch (e) {
          return e as IngestError;
        }
        throw new Error('ingest() stored a broken body');
      })();
      const { outcome } = await queue.check(b);
      expect(outcome).toBeInstanceOf(IngestError);
      expect({ ...(outcome as IngestError), message: (outcome as IngestError).message }).toEqual({
        ...direct,
        message: direct.message,
      });
    }
  });

  it('answers 503 with retry-after past maxQueued, and takes submissions again once they drain', async () => {
    const db = tempDb();
    const queue = newQueue(db, { ...CHECKS, maxQueued: 2 });
    const [a, b, c, d] = submissions(4).map((s) => Buffer.from(s));
    // In one tick: no check can finish before the third is asked for.
    const first = [submit(queue, a!), submit(queue, b!)];
    const third = queue.check(c!);
    await expect(third).rejects.toBeInstanceOf(HttpError);
    const busy = (await third.catch((e: unknown) => e)) as HttpError;
    expect(busy).toMatchObject({ code: 'BUSY', status: 503 });
    expect(busy.retryAfterSec).toBeGreaterThanOrEqual(1);
    expect(busy.message).toMatch(/checking 2 submissions .*; retry in \d+ s$/);
    expect((await Promise.all(first)).map((o) => o.duplicate)).toEqual([false, false]);
    expect(queue.checking).toBe(0);
    await submit(queue, d!);
    expect(count(db).results).toBe(3);
  });

  it('takes one body of any size, and no second past maxQueuedBytes', async () => {
    const queue = newQueue(tempDb(), { ...CHECKS, maxQueuedBytes: 1000 });
    const [a, b] = submissions(2).map((s) => Buffer.from(s));
    expect(a!.length).toBeGreaterThan(1000);
    const first = submit(queue, a!);
    await expect(queue.check(b!)).rejects.toMatchObject({ code: 'BUSY', status: 503 });
    expect((await first).duplicate).toBe(false);
  });
});

describe('IngestQueue hands large bodies to the thread', () => {
  it('moves a body past 64 KiB rather than copying it, and stores it', async () => {
    const db = tempDb();
    const queue = newQueue(db);
    // Whitespace before the envelope is JSON: 100 KB that fastify would have read into one buffer.
    const large = Buffer.from(`${' '.repeat(100_000)}${body(variant(5))}`);
    const small = Buffer.from(body(variant(6)));
    expect((await submit(queue, large)).duplicate).toBe(false);
    expect(large.length).toBe(0); // its memory now belongs to the thread
    expect((await submit(queue, small)).duplicate).toBe(false);
    expect(small.length).toBeGreaterThan(0);
    expect(count(db).results).toBe(2);
  });
});
