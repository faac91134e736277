import { readFileSync } from 'node:fs';
import type { ResultV1 } from '@redis-benchdb/result';
import { remeasured } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import {
  type BenchDb,
  cohortDistribution,
  explainSearch,
  getStoredResult,
  ingest,
  ingestImported,
  nearestRank,
  retract,
  type SearchPage,
  searchResults,
  signRetraction,
} from '../src/index.js';
import { body, key, NOW, variant, vouchedDb, withPipeline } from './fixtures.js';

const cpu = (model: string) => (r: ResultV1) => {
  r.environment.client.cpu.model = model;
};

/**
 * Twelve results received a second apart: even ones on CPU A, odd on CPU B; every third at pipeline 16;
 * result 5 retracted; and one imported result. Each i is 1 + i/10 times the example's speed.
 */
function filled() {
  const db = vouchedDb();
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    const r = remeasured(
      variant(i, (x) => {
        cpu(i % 2 === 0 ? 'CPU A' : 'CPU B')(x);
        if (i % 3 === 0) withPipeline(x, 16);
      }),
      1 + i / 10,
    );
    ids.push(ingest(db, body(r), { now: new Date(NOW.getTime() + i * 1000) }).id);
  }
  retract(db, signRetraction(ids[5]!, key.privateKeyPem, new Date(NOW.getTime() + 20_000)), {
    now: new Date(NOW.getTime() + 20_001),
  });
  const text = readFileSync(
    new URL('../../../data/imported/redis-io-benchmarks-linode-2048-p16.json', import.meta.url),
    'utf8',
  );
  const imported = ingestImported(db, text, { now: new Date(NOW.getTime() + 30_000) }).id;
  return { db, ids, imported };
}

/** Every page, following `next`, with the page sizes seen. */
function walk(db: BenchDb, filter: Parameters<typeof searchResults>[1], limit: number, scanLimit?: number) {
  const pages: SearchPage[] = [];
  let after: SearchPage['next'] | undefined;
  do {
    const page = searchResults(db, filter, {
      limit,
      ...(after ? { after } : {}),
      ...(scanLimit ? { scanLimit } : {}),
    });
    pages.push(page);
    after = page.next;
  } while (after && pages.length < 100);
  return { ids: pages.flatMap((p) => p.results.map((r) => r.id)), sizes: pages.map((p) => p.results.length) };
}

describe('searching results', () => {
  it('lists every listed result newest first, page by page, without the retracted one', () => {
    const { db, ids, imported } = filled();
    const newestFirst = [imported, ...ids.filter((_, i) => i !== 5).reverse()];
    expect(walk(db, {}, 5)).toEqual({ ids: newestFirst, sizes: [5, 5, 2] });
    expect(walk(db, {}, 200).sizes).toEqual([12]);
    // Without a cell filter, a result lists its headline cells only.
    const [imp, p1, , p16] = searchResults(db, {}, { limit: 4 }).results;
    expect(imp!.cells.map((c) => c.label)).toEqual(['SET', 'GET']);
    expect(p1!.cells.map((c) => c.label)).toEqual(['GET', 'SET']);
    expect(p16!.id).toBe(ids[9]);
    expect(p16!.cells.map((c) => c.label)).toEqual(['SET P16', 'GET P16']);
  });

  it('filters on the cells and on the result, and lists the matching cells', () => {
    const { db, ids, imported } = filled();
    const p16 = walk(db, { test: 'GET', pipelineDepth: 16 }, 2);
    expect(p16.ids).toEqual([imported, ids[9], ids[6], ids[3], ids[0]]);
    const page = searchResults(db, { test: 'GET', pipelineDepth: 16, cpuModel: 'CPU A' });
    expect(page.results.map((r) => r.id)).toEqual([ids[6], ids[0]]);
    expect(page.results[0]!.cells.map((c) => [c.label, c.pipelineDepth])).toEqual([['GET P16', 16]]);
    expect(page.results[0]!.cells[0]!.opsPerSec).toBeGreaterThan(0);
    expect(walk(db, { cpuModel: 'CPU B', serverProduct: 'redis', serverVersion: '7.4.1' }, 50).ids).toEqual(
      [11, 9, 7, 3, 1].map((i) => ids[i]),
    );
    // The imported result ran on a Linode VM and did not say its value size.
    expect(walk(db, { virtualizationKind: 'vm' }, 50).ids).toEqual([imported]);
    expect(walk(db, { valueSize: 256 }, 50).ids).toHaveLength(11);
    expect(walk(db, { valueSize: 3 }, 50).ids).toEqual([]);
    expect(searchResults(db, { connections: 50 }).results).toHaveLength(12);
  });

  it('walks a bounded window per request: a selective filter gets short pages and a cursor', () => {
    const { db, ids, imported } = filled();
    // 13 rows in the index (the retracted one included), 4 per request: 4 requests, the last one short.
    const found = walk(db, { cpuModel: 'CPU B' }, 50, 4);
    expect(found.ids).toEqual([11, 9, 7, 3, 1].map((i) => ids[i]));
    expect(found.sizes).toHaveLength(4);
    expect(walk(db, { cpuModel: 'none' }, 50, 4).sizes).toEqual([0, 0, 0, 0]);
    expect(walk(db, {}, 50, 13).ids[0]).toBe(imported);
    expect(() => searchResults(db, {}, { limit: 201 })).toThrow(/limit: 201 \(an integer from 1 to 200\)/);
  });

  it('reads covering indexes and primary keys only', () => {
    const { db } = filled();
    const plan = explainSearch(db);
    expect(plan.search).toMatch(
      /SEARCH results USING COVERING INDEX results_site_list \(\(received_at,id\)<\(\?,\?\)\)/,
    );
    expect(plan.search).toMatch(/SEARCH c USING INDEX sqlite_autoindex_cells_1 \(result_id=\?\)/);
    expect(plan.windowEnd).toMatch(/SEARCH results USING COVERING INDEX results_site_list/);
    expect(plan.cells).toBe('SEARCH c USING INDEX sqlite_autoindex_cells_1 (result_id=?)');
    for (const p of Object.values(plan)) {
      expect(p).not.toMatch(/TEMP B-TREE/);
      // A SCAN of a table (not of the bounded window co-routine) would grow with the database.
      expect(p).not.toMatch(/SCAN (results|c|cells)\b/);
    }
  });
});

describe('one stored result', () => {
  it('is the envelope for a signed result and the document for an imported one', () => {
    const { db, ids, imported } = filled();
    expect(JSON.parse(getStoredResult(db, ids[0]!)!.json).schema).toBe('redis-benchdb/envelope.v1');
    expect(getStoredResult(db, imported)).toMatchObject({ kind: 'imported', retractedAt: null });
    expect(JSON.parse(getStoredResult(db, imported)!.json).schema).toBe('redis-benchdb/imported.v1');
    expect(getStoredResult(db, ids[5]!)!.retractedAt).not.toBeNull();
    expect(getStoredResult(db, '0'.repeat(64))).toBeNull();
  });
});

describe("a cohort's distribution", () => {
  it('gives percentiles from five results up, and the values below', () => {
    const { db } = filled();
    const fp = variant(1).cells.find((c) => c.label === 'GET')!.workloadFingerprint;
    const all = cohortDistribution(db, fp);
    // Pipeline 1: results 1, 2, 4, 7, 8, 10, 11 (5 retracted, every third at pipeline 16).
    expect(all.count).toBe(7);
    const ops = [1, 2, 4, 7, 8, 10, 11].map((i) => 131204 * (1 + i / 10));
    expect(all.opsPerSec.min).toBeCloseTo(ops[0]!, 0);
    expect(all.opsPerSec.max).toBeCloseTo(ops[6]!, 0);
    expect(all.opsPerSec.percentiles!.p50).toBeCloseTo(ops[3]!, 0);
    expect(all.opsPerSec.values).toBeNull();
    const a = cohortDistribution(db, fp, { cpuModel: 'CPU A' });
    expect(a).toMatchObject({ count: 4, cpuModel: 'CPU A', opsPerSec: { percentiles: null } });
    expect(a.opsPerSec.values).toHaveLength(4);
    expect(cohortDistribution(db, 'sha256:none')).toMatchObject({
      count: 0,
      opsPerSec: { min: null, values: [] },
    });
  });

  it('takes nearest-rank percentiles', () => {
    expect([10, 50, 90, 100].map((q) => nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], q))).toEqual([
      1, 5, 9, 10,
    ]);
    expect(nearestRank([7], 10)).toBe(7);
  });
});
