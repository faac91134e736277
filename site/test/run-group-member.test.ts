import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getSiteResult, ingest, openDatabase } from '@redis-benchdb/db';
import { body, otherRun } from '@redis-benchdb/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { toResultView } from '../src/lib/model/model.js';

// Issue 39 item 1: a result the database did not admit to its run group (packages/db migration 12 took
// another key's result out of a group it named) must not link to that group, though its document names it.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const NOW = new Date('2025-03-06T12:00:00Z');
const grouped = (n: number, index: number) =>
  otherRun(n, (r) => {
    r.runGroup = { id: '4ac7212694714aa5', index, size: 2, label: `member ${index}`, varies: ['server'] };
  });

describe("a result's run group on the site", () => {
  it('is the one the database holds it in, and none where the database took it out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rbdb-site-group-'));
    dirs.push(dir);
    const db = openDatabase(join(dir, 'benchdb.sqlite'));
    try {
      const member = ingest(db, body(grouped(1, 0)), { now: NOW }).id;
      const outside = ingest(db, body(grouped(2, 1)), { now: NOW }).id;
      // What migration 12 does to a result another key signed into a stored group.
      db.sqlite
        .prepare(
          'UPDATE results SET run_group_id = NULL, run_group_label = NULL, run_group_index = NULL WHERE id = ?',
        )
        .run(outside);
      expect(toResultView(getSiteResult(db, member)!).runGroup).toMatchObject({
        id: '4ac7212694714aa5',
        index: 0,
      });
      expect(toResultView(getSiteResult(db, outside)!).runGroup).toBeNull();
    } finally {
      db.close();
    }
  });
});
