import { describe, expect, it } from 'vitest';
import {
  type BenchDb,
  type CellFilter,
  count,
  explainFindCells,
  findCells,
  getEnvelope,
  ingest,
  integrityCheck,
  listResults,
} from '../src/index.js';
import { body, NOW, tempDb, variant, withPipeline } from './fixtures.js';

/** Results that differ from the wanted one in one respect each, and two that match. */
function seed(db: BenchDb): Record<string, string> {
  const ids: Record<string, string> = {};
  const add = (name: string, n: number, edit: Parameters<typeof variant>[1]) => {
    ids[name] = ingest(db, body(variant(n, edit)), { now: new Date(NOW.getTime() + n * 1000) }).id;
  };
  add('match', 1, (r) => withPipeline(r, 16));
  add('match-7.2', 2, (r) => {
    withPipeline(r, 16);
    r.environment.server.version = '7.2.5';
    r.warnings = [];
  });
  add('pipeline-1', 3, () => {});
  add('vm', 4, (r) => {
    withPipeline(r, 16);
    r.environment.client.virtualization = { kind: 'vm', hypervisor: 'kvm', container: null };
  });
  add('redis-6', 5, (r) => {
    withPipeline(r, 16);
    r.environment.server.version = '6.2.14';
  });
  add('valkey', 6, (r) => {
    withPipeline(r, 16);
    r.environment.server.product = 'valkey';
    r.environment.server.version = '7.2.5';
  });
  return ids;
}

const GET_P16_BARE_METAL_REDIS_7: CellFilter = {
  test: 'GET',
  pipelineDepth: 16,
  virtualizationKind: 'bare-metal',
  serverProduct: 'redis',
  serverVersionMajor: 7,
};

describe('queries', () => {
  it('finds GET cells at pipeline 16 on bare metal, Redis 7.x, through an index', () => {
    const db = tempDb();
    const ids = seed(db);
    const cells = findCells(db, GET_P16_BARE_METAL_REDIS_7);
    expect(cells.map((c) => c.resultId).sort()).toEqual([ids.match, ids['match-7.2']].sort());
    const cell = cells.find((c) => c.resultId === ids.match)!;
    expect(cell).toMatchObject({
      idx: 1,
      label: 'GET P16',
      test: 'GET',
      pipelineDepth: 16,
      connections: 50,
      opsMedian: 131204,
      p50Us: 371,
      unstable: false,
      clientBound: false,
      incomplete: false,
      result: {
        kind: 'signed',
        serverProduct: 'redis',
        serverVersion: '7.4.1',
        serverVersionMajor: 7,
        virtualizationKind: 'bare-metal',
        persistenceOn: false,
        warningCodes: ['SAME_HOST'],
      },
    });
    expect(cell).not.toHaveProperty('histogram'); // read from the envelope (readDocument), not a column
    const plan = explainFindCells(db, GET_P16_BARE_METAL_REDIS_7).join('\n');
    expect(plan).toMatch(/USING (COVERING )?INDEX (cells_by_test|results_by_server)/);
    expect(plan).not.toMatch(/SCAN c\b|SCAN cells\b/);
  });

  it('filters by workload fingerprint and leaves out cells with warnings', () => {
    const db = tempDb();
    const ids = seed(db);
    const [first] = findCells(db, { test: 'GET', pipelineDepth: 16 });
    const same = findCells(db, { workloadFingerprint: first!.workloadFingerprint! });
    expect(same.length).toBe(5); // every GET P16 cell ran the same workload
    expect(findCells(db, { ...GET_P16_BARE_METAL_REDIS_7, noWarnings: true }).map((c) => c.resultId)).toEqual(
      [ids['match-7.2']],
    );
    expect(findCells(db, { pipelineDepth: 1 }).map((c) => c.test)).toEqual(['GET', 'SET']);
    expect(findCells(db).length).toBe(12);
  });

  it('lists results newest first, a page at a time', () => {
    const db = tempDb();
    const ids = seed(db);
    const all = listResults(db);
    expect(all.map((r) => r.id)).toEqual(
      ['valkey', 'redis-6', 'vm', 'pipeline-1', 'match-7.2', 'match'].map((n) => ids[n]),
    );
    expect(all[0]).toMatchObject({
      kind: 'signed',
      serverProduct: 'valkey',
      cellCount: 2,
      retractedAt: null,
    });
    expect(listResults(db, { limit: 2, offset: 1 }).map((r) => r.id)).toEqual([ids['redis-6'], ids.vm]);
    expect(() => listResults(db, { limit: 5000 })).toThrow(RangeError);
  });

  it('counts rows and checks integrity', () => {
    const db = tempDb();
    seed(db);
    expect(count(db)).toEqual({ results: 6, retracted: 0, cells: 12, warnings: 5 });
    expect(integrityCheck(db)).toEqual(['ok']);
    expect(getEnvelope(db, 'f'.repeat(64))).toBeNull();
  });
});
