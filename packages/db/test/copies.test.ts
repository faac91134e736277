import { remeasured } from '@redis-benchdb/testing';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { applyMigrations, ingest, MIGRATIONS, retract, signRetraction } from '../src/index.js';
import { MIN_DIGEST_LATENCIES, measurementRows } from '../src/ingest/measurements.js';
import { body, envelope, key, NOW, otherKey, suiteRun, tempDb, tempPath, variant } from './fixtures.js';

// Issue 13 item 5: measurements that repeat another result's are marked as a copy under the same key;
// under another key both results are disputed (issue 30 item 1, disputes.test.ts): both through the
// one ingest() every path uses.

const copiesOf = (db: ReturnType<typeof tempDb>) =>
  db.sqlite.prepare('SELECT result_id AS id, copy_of AS copyOf, cell_label AS cell FROM result_copies').all();

describe('duplicate measurements', () => {
  it('the same measurements under another key are disputed, naming the result, and their digest kept once', () => {
    const db = tempDb();
    const first = ingest(db, body(variant(1)), { now: NOW }).id;
    // The same cells, another key prefix (so another id), re-signed by someone else.
    const copy = ingest(db, body(variant(2), otherKey), { now: NOW });
    expect(copy.disputedWith).toEqual([first]);
    expect(copiesOf(db)).toEqual([]);
    expect(
      db.sqlite
        .prepare('SELECT count(*) AS n FROM cell_measurements WHERE histogram_sha256 IS NOT NULL')
        .get(),
    ).toEqual({ n: 2 });
  });

  it('disputes them with ops/s changed too: the histogram is the copy', () => {
    const db = tempDb();
    ingest(db, body(variant(1)), { now: NOW });
    const inflated = variant(2, (r) => {
      for (const c of r.cells) {
        const { median, ci95Low, ci95High } = c.opsPerSec;
        c.opsPerSec = {
          ...c.opsPerSec,
          median: median * 1.5,
          ci95Low: ci95Low * 1.5,
          ci95High: ci95High * 1.5,
        };
      }
    });
    expect(ingest(db, body(inflated, otherKey), { now: NOW }).disputedWith).toHaveLength(1);
  });

  it("takes another key's own run of the same setup (its own histograms)", () => {
    const db = tempDb();
    ingest(db, body(variant(1)), { now: NOW });
    const out = ingest(db, body(remeasured(variant(2), 1.02), otherKey), { now: NOW });
    expect(out.duplicate).toBe(false);
    expect(out.copyOf).toBeUndefined();
    expect(copiesOf(db)).toEqual([]);
  });

  it("stores the same key's copy, marked as a copy of the first, and says so", () => {
    const db = tempDb();
    const first = ingest(db, body(variant(1)), { now: NOW }).id;
    const again = ingest(db, body(variant(2)), { now: NOW });
    expect(again).toMatchObject({ duplicate: false, copyOf: first });
    expect(copiesOf(db)).toEqual([{ id: again.id, copyOf: first, cell: 'SET' }]);
    // The very same result again is the same row, not a copy of itself.
    expect(ingest(db, body(variant(1)), { now: NOW })).toMatchObject({ id: first, duplicate: true });
    expect(copiesOf(db)).toHaveLength(1);
  });

  it("a result its own key retracted does not count against that key, but still against another's", () => {
    const db = tempDb();
    const first = ingest(db, body(variant(1)), { now: NOW }).id;
    retract(db, signRetraction(first, key.privateKeyPem, NOW), { now: NOW });
    expect(ingest(db, body(variant(2)), { now: NOW }).copyOf).toBeUndefined();
    expect(ingest(db, body(variant(3), otherKey), { now: NOW }).disputedWith).toEqual([first]);
  });

  it('does not digest a histogram of fewer than 1,000 latencies: small runs may honestly agree', () => {
    const small = variant(1, (r) => {
      for (const c of r.cells) c.latencyUs = { ...c.latencyUs, count: MIN_DIGEST_LATENCIES - 1 };
    });
    expect(measurementRows('x', small).map((r) => r.histogram_sha256)).toEqual([null, null]);
    expect(measurementRows('x', variant(1)).every((r) => /^[0-9a-f]{64}$/.test(r.histogram_sha256!))).toBe(
      true,
    );
  });

  it('records what keeps each cell from a verdict, and its environment and workload', () => {
    const db = tempDb();
    const id = ingest(
      db,
      body(
        variant(1, (r) => {
          r.warnings.push({
            code: 'BUSY_HOST',
            message: 'Other processes used 47% of the CPUs.',
            cell: 'GET',
          });
          r.cells[0]!.unstable = true;
        }),
      ),
      { now: NOW },
    ).id;
    const rows = db.sqlite
      .prepare(
        'SELECT label, environment_fingerprint AS env, no_verdict AS flags FROM cell_measurements WHERE result_id = ? ORDER BY idx',
      )
      .all(id);
    const env = suiteRun().environment.fingerprint;
    expect(rows).toEqual([
      { label: 'SET', env, flags: 'UNSTABLE' },
      { label: 'GET', env, flags: 'BUSY_HOST' },
    ]);
  });

  it('migration 4 fills the rows of results stored before it and marks the copies among them, whatever the key', () => {
    const path = tempPath();
    const raw = new Database(path);
    applyMigrations(raw, MIGRATIONS.slice(0, 3));
    const put = (id: string, env: ReturnType<typeof envelope>, at: string) =>
      raw
        .prepare(
          `INSERT INTO results (id, kind, schema, envelope, document, key_fingerprint, received_at)
           VALUES (?, 'signed', 'redis-benchdb/result.v1', ?, ?, ?, ?)`,
        )
        .run(id, JSON.stringify(env), env.payload, env.keyFingerprint, at);
    put('first', envelope(variant(1)), '2025-03-06T10:00:00.000Z');
    put('theirs', envelope(variant(2), otherKey), '2025-03-06T11:00:00.000Z');
    put('own', envelope(remeasured(variant(3), 1.02), otherKey), '2025-03-06T12:00:00.000Z');
    raw.close();
    const db = tempDb(path);
    expect(db.sqlite.prepare('SELECT count(*) AS n FROM cell_measurements').get()).toEqual({ n: 6 });
    expect(copiesOf(db)).toEqual([{ id: 'theirs', copyOf: 'first', cell: 'SET' }]);
  });
});
