import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  applyMigrations,
  ingest,
  listResults,
  listRunGroup,
  MIGRATIONS,
  retract,
  signRetraction,
} from '../src/index.js';
import { body, envelope, key, NOW, tempDb, tempPath, variant } from './fixtures.js';

const GROUP = '0123456789abcdef';

/** Member `index` of a group of `size`, as `run --server-bin A --server-bin B` signs them. */
function member(n: number, index: number, size = 3, id = GROUP) {
  return variant(n, (r) => {
    r.runGroup = {
      id,
      index,
      size,
      label: `redis-server 7.4.1 · io-threads ${index + 1}`,
      varies: ['serverConfig'],
    };
  });
}

describe('run groups', () => {
  it('ingest fills the group columns; listResults shows them; a result without a group has nulls', () => {
    const db = tempDb();
    const grouped = ingest(db, body(member(1, 1)), { now: NOW }).id;
    const alone = ingest(db, body(variant(2)), { now: NOW }).id;
    const byId = new Map(listResults(db).map((r) => [r.id, r]));
    expect(byId.get(grouped)).toMatchObject({
      runGroupId: GROUP,
      runGroupLabel: 'redis-server 7.4.1 · io-threads 2',
      runGroupIndex: 1,
    });
    expect(byId.get(alone)).toMatchObject({ runGroupId: null, runGroupLabel: null, runGroupIndex: null });
  });

  it('listRunGroup lists the members in index order, not in the order received, without retracted ones', () => {
    const db = tempDb();
    // Received out of order, with a member of another group and a result of none.
    const ids = [2, 0, 1].map((i) => ingest(db, body(member(10 + i, i)), { now: NOW }).id);
    ingest(db, body(member(20, 0, 2, 'fedcba9876543210')), { now: NOW });
    ingest(db, body(variant(30)), { now: NOW });
    const [second, first, middle] = ids as [string, string, string];
    expect(listRunGroup(db, GROUP).map((r) => r.id)).toEqual([first, middle, second]);
    expect(listRunGroup(db, GROUP).map((r) => r.runGroupIndex)).toEqual([0, 1, 2]);
    retract(db, signRetraction(middle, key.privateKeyPem, NOW), { now: NOW });
    expect(listRunGroup(db, GROUP).map((r) => r.id)).toEqual([first, second]);
    expect(listRunGroup(db, 'ffffffffffffffff')).toEqual([]);
  });

  it('the query uses the run-group index', () => {
    const db = tempDb();
    const plan = db.sqlite
      .prepare('EXPLAIN QUERY PLAN SELECT id FROM results WHERE run_group_id = ? ORDER BY run_group_index')
      .all(GROUP) as { detail: string }[];
    expect(plan.map((p) => p.detail).join('\n')).toMatch(/USING INDEX results_by_run_group/);
  });

  it('refuses a member whose index is not below the group size', () => {
    const db = tempDb();
    expect(() => ingest(db, body(member(1, 3, 3)), { now: NOW })).toThrow(
      '/runGroup/index: 3 is not below size (3)',
    );
  });

  it('the migration backfills the columns of rows stored before it', () => {
    const path = tempPath();
    // A database at version 1 holding a grouped result, as an older redis-benchdb would have left it.
    const raw = new Database(path);
    applyMigrations(raw, MIGRATIONS.slice(0, 1));
    const env = envelope(member(1, 2));
    raw
      .prepare(
        `INSERT INTO results (id, kind, schema, envelope, document, key_fingerprint, received_at)
         VALUES ('old', 'signed', 'redis-benchdb/result.v1', ?, ?, ?, ?)`,
      )
      .run(JSON.stringify(env), env.payload, env.keyFingerprint, NOW.toISOString());
    raw.close();
    const db = tempDb(path);
    expect(listRunGroup(db, GROUP)).toEqual([
      expect.objectContaining({
        id: 'old',
        runGroupIndex: 2,
        runGroupLabel: 'redis-server 7.4.1 · io-threads 3',
      }),
    ]);
  });
});
