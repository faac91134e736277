import { describe, expect, it } from 'vitest';
import type { CellView, ResultView } from '../src/lib/model/model.js';
import { publishedComparisons, rowStatement, sameWorkload } from '../src/lib/published/published.js';

// Issue 29: a publication's two versions paired up again, row by row, and each row set beside the
// dataset's paired ratio for the same workload, or told why there is none.

const cell = (
  label: string,
  test: string,
  pipeline: number,
  bytes: number,
  ops: number,
  trialOps: number[] = [],
) =>
  ({
    label,
    test,
    connections: 50,
    pipelineDepth: pipeline,
    valueSizeMin: bytes,
    valueSizeMax: bytes,
    opsMedian: ops,
    trialOps,
    errors: false,
    noVerdict: [],
    clientBound: false,
  }) as unknown as CellView;

const published = (id: string, version: string, cells: CellView[]) =>
  ({
    id,
    kind: 'imported',
    source: {
      title: 'A comparison',
      url: 'https://example.org/1',
      section: null,
      tool: null,
      publishedAt: null,
    },
    machine: { cpuModel: 'Graviton2' },
    server: { product: 'valkey', version, ioThreads: null, persistence: null },
    cells,
    raw: JSON.stringify({ machine: { description: 'AWS r6g.metal (ARM, Graviton2)' } }),
  }) as unknown as ResultView;

const member = (id: string, version: string, cells: CellView[], ioThreads = 1) =>
  ({
    id,
    kind: 'signed',
    server: { product: 'valkey', version, ioThreads, persistence: 'none' },
    configuration: { key: `c${ioThreads}`, label: `io-threads ${ioThreads}`, isDefault: ioThreads === 1 },
    cells,
    runGroup: { id: 'g1', label: version, index: 0, interleaved: true },
  }) as unknown as ResultView;

const imported = [
  // Newer version first: the older one must still come out as the base.
  published('b', '8.0.0-rc2', [cell('SET p10', 'SET', 10, 16, 1050), cell('GET p1', 'GET', 1, 16, 900)]),
  published('a', '7.2.6', [cell('SET p10', 'SET', 10, 16, 1000), cell('GET p1', 'GET', 1, 16, 1000)]),
];

describe('published comparisons', () => {
  it('pairs the two versions of one source by row, oldest as the base, with the published ratio', () => {
    const [c] = publishedComparisons(imported, []);
    expect(c!.base.version).toBe('7.2.6');
    expect(c!.other.version).toBe('8.0.0-rc2');
    expect(c!.machine).toBe('AWS r6g.metal (ARM, Graviton2)');
    expect(c!.rows.map((r) => [r.label, r.ratio])).toEqual([
      ['SET p10', 1.05],
      ['GET p1', 0.9],
    ]);
  });

  it('without a group of both versions, every row says so', () => {
    const [c] = publishedComparisons(imported, []);
    for (const r of c!.rows) {
      expect(r.match.kind).toBe('none');
      expect(rowStatement(r)).toBe(
        'No match: no interleaved group in data/ ran valkey 7.2.6 and valkey 8.0.0-rc2 together (io-threads 1, no persistence).',
      );
    }
  });

  it("sets a matching row beside the group's paired ratio, and says whether the published change lies inside", () => {
    // 5 rounds, 8.0 4-6% faster in each: the published +5% lies inside, a -10% outside.
    const base = [100, 90, 110, 95, 105];
    const other = base.map((x, i) => x * [1.04, 1.05, 1.06, 1.05, 1.05][i]!);
    const group = {
      id: 'g1',
      machine: 'AMD EPYC · 2 vCPU',
      members: [
        member('m1', '7.2.6', [cell('set', 'set', 10, 16, 100, base), cell('get', 'GET', 1, 128, 100, base)]),
        member('m2', '8.0.0-rc2', [
          cell('set', 'set', 10, 16, 105, other),
          cell('get', 'GET', 1, 128, 100, other),
        ]),
      ],
    };
    const [c] = publishedComparisons(imported, [group]);
    const [set, get] = c!.rows;
    expect(set!.match).toMatchObject({ kind: 'paired', groupId: 'g1', rounds: 5, inside: true });
    expect(set!.match.kind === 'paired' && set!.match.ratio).toBeCloseTo(1.05, 2);
    expect(rowStatement(set!)).toBe('The published change lies inside our interval on AMD EPYC · 2 vCPU.');
    // The group ran GET with 128-byte values, the publication 16: no match, and the reason names the workload.
    expect(get!.match).toEqual({
      kind: 'none',
      reason:
        'the group that ran valkey 7.2.6 and valkey 8.0.0-rc2 ran no GET at pipeline 1, 16-byte values, 50 connections',
    });
    const outside = publishedComparisons(
      [published('b', '8.0.0-rc2', [cell('SET p10', 'SET', 10, 16, 900)]), imported[1]!],
      [group],
    )[0]!.rows[0]!;
    expect(rowStatement(outside)).toBe(
      'The published change lies outside our interval on AMD EPYC · 2 vCPU.',
    );
  });

  it('takes no member of another configuration (io-threads 2) as a version', () => {
    const group = {
      id: 'g2',
      machine: 'm',
      members: [member('m1', '7.2.6', [], 2), member('m2', '8.0.0-rc2', [])],
    };
    expect(publishedComparisons(imported, [group])[0]!.rows[0]!.match.kind).toBe('none');
  });

  it('matches only a cell whose every stated parameter is equal', () => {
    const row = { test: 'SET', pipeline: 10, valueBytes: 16, connections: 50 };
    expect(sameWorkload(cell('x', 'set', 10, 16, 1), row)).toBe(true);
    expect(sameWorkload(cell('x', 'SET', 16, 16, 1), row)).toBe(false);
    expect(sameWorkload({ ...cell('x', 'SET', 10, 16, 1), connections: 1 } as CellView, row)).toBe(false);
    expect(sameWorkload(cell('x', 'SET', 10, 16, 1), { ...row, connections: null })).toBe(false);
  });
});
