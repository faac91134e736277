import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  cellsByWorkload,
  commonWorkload,
  exportJsonlLines,
  exportResults,
  getSiteResult,
  ingest,
  ingestImported,
  iterateSiteResults,
  retract,
  signRetraction,
  siteQueryPlans,
} from '../src/index.js';
import { body, key, NOW, tempDb, variant, withPipeline } from './fixtures.js';

const imported = readFileSync(
  new URL('../../../data/imported/redis-docs-old-benchmarks-xeon-x3320.json', import.meta.url),
  'utf8',
);

function filled() {
  const db = tempDb();
  const at = (n: number) => ({ now: new Date(NOW.getTime() + n * 1000) });
  // body() pretty-prints the envelope, as a client may: the export must still be one line per result.
  const a = ingest(db, body(variant(1)), at(1)).id;
  const b = ingest(db, body(variant(2, (r) => withPipeline(r, 16))), at(2)).id;
  const gone = ingest(db, body(variant(3)), at(3)).id;
  const imp = ingestImported(db, imported, at(4)).id;
  retract(db, signRetraction(gone, key.privateKeyPem, new Date(NOW.getTime() + 5000)), {
    now: new Date(NOW.getTime() + 6000),
  });
  return { db, a, b, gone, imp };
}

describe('the site queries', () => {
  it('list every listed result newest first, never a retracted one', () => {
    const { db, a, b, gone, imp } = filled();
    const rows = [...iterateSiteResults(db)];
    expect(rows.map((r) => r.id)).toEqual([imp, b, a]);
    expect(rows.find((r) => r.id === imp)).toMatchObject({ kind: 'imported', keyFingerprint: null });
    expect(rows[2]).toMatchObject({ kind: 'signed', suiteId: 'standard-v1', cellCount: 2 });
    expect(getSiteResult(db, gone)).toBeNull();
    expect(getSiteResult(db, a)?.envelope).toContain('"payload"');
  });

  it('find the common workload of a label and its cells across results', () => {
    const { db, a, b } = filled();
    const fp = commonWorkload(db, 'standard-v1', 'GET');
    expect(fp).toMatch(/^sha256:/);
    const cells = cellsByWorkload(db, [fp!]);
    // b ran GET at pipeline 16: another workload, so only a's GET shares the fingerprint.
    expect(cells.map((c) => c.resultId)).toEqual([a]);
    expect(cells.map((c) => c.resultId)).not.toContain(b);
    expect(commonWorkload(db, 'standard-v1', 'NO SUCH CELL')).toBeNull();
  });

  it('leave out of the headline a cell whose replies were mostly errors (warning ERRORS)', () => {
    const db = tempDb();
    const ok = ingest(db, body(variant(1)), { now: NOW }).id;
    const refused = ingest(
      db,
      body(
        variant(4, (r) => {
          const get = r.cells.find((c) => c.label === 'GET')!;
          get.errorReplies = {
            count: 900,
            ratio: 0.9,
            successOpsPerSec: 10,
            example: 'OOM command not allowed',
          };
          r.warnings.push({ code: 'ERRORS', message: 'Most replies in this cell were errors.', cell: 'GET' });
        }),
      ),
      { now: new Date(NOW.getTime() + 1000) },
    ).id;
    const fps = [...new Set(variant(1).cells.map((c) => c.workloadFingerprint))];
    const cells = cellsByWorkload(db, fps);
    expect(
      cells
        .filter((c) => c.resultId === ok)
        .map((c) => c.label)
        .sort(),
    ).toEqual(['GET', 'SET']);
    // The other cells of the same result stay.
    expect(cells.filter((c) => c.resultId === refused).map((c) => c.label)).toEqual(['SET']);
  });

  it('answer from covering indexes, never reading a document (migration 3)', () => {
    const { db } = filled();
    const plans = siteQueryPlans(db);
    expect(plans.list).toMatch(/SCAN r USING COVERING INDEX results_site_list/);
    expect(plans.byId).toMatch(/SEARCH r USING COVERING INDEX results_site_by_id \(id=\?/);
    expect(plans.common).toMatch(/COVERING INDEX cells_site_headline/);
    expect(plans.common).toMatch(/COVERING INDEX results_site_by_id/);
    expect(plans.cells).toMatch(/COVERING INDEX results_site_by_id/);
  });

  it('export JSON Lines equal to exportResults, one line per result, without parsing', () => {
    const { db } = filled();
    const lines = [...exportJsonlLines(db)];
    expect(lines.every((l) => l.endsWith('\n') && l.indexOf('\n') === l.length - 1)).toBe(true);
    expect(lines.map((l) => JSON.parse(l))).toEqual(
      [...exportResults(db)].map((r) => JSON.parse(JSON.stringify(r))),
    );
  });
});
