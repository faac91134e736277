import { describe, expect, it } from 'vitest';
import type { MatrixEntry } from '../src/lib/compare/matrix.js';
import { columnName, groupHead, matrixAgainst } from '../src/lib/groups/group-matrix.js';
import type { CellView, ResultView } from '../src/lib/model/model.js';

const FP = (label: string) => `sha256:${label.replace(/\W/g, '').toLowerCase().padEnd(64, '0')}`;

/** A member of an interleaved group with these per-round ops/s per cell; only what the matrix reads is filled in. */
function member(
  index: number,
  label: string,
  server: { product: string; version: string },
  config: string,
  cells: Record<string, number[]>,
): ResultView {
  return {
    id: `${index}`.repeat(64).slice(0, 64),
    kind: 'signed',
    machine: { cpuModel: 'AMD EPYC', virtualization: 'vm' },
    machineKind: { key: 'm1|kind', label: 'AMD EPYC · L2 512 KiB · 2 vCPU · KVM' },
    configuration: { key: `c1|${config}`, label: config, isDefault: config.startsWith('io-threads 1 ') },
    server,
    link: {},
    suite: null,
    warnings: [],
    environmentFingerprint: null,
    cells: Object.entries(cells).map(([l, trialOps], idx) => {
      const sorted = [...trialOps].sort((x, y) => x - y);
      return {
        idx,
        label: l,
        test: l.split(' ')[0],
        workloadFingerprint: FP(l),
        opsMedian: sorted[(sorted.length - 1) >> 1]!,
        opsLow: sorted[0]!,
        opsHigh: sorted.at(-1)!,
        opsSpread: `range of ${trialOps.length} trials`,
        trialOps,
        unstable: false,
        errors: false,
        noVerdict: [],
        slo: null,
      } as unknown as CellView;
    }),
    runGroup: { id: '9f2c41d07a3be865', label, index, interleaved: true },
  } as unknown as ResultView;
}

const DEFAULT = 'io-threads 1 · no AOF · no RDB · tcp';
// The machine was loaded in round 2; b is 10% faster than a in every round, c about as fast as a.
const a = member(0, 'redis-server 7.2.6', { product: 'redis', version: '7.2.6' }, DEFAULT, {
  GET: [100, 60, 100],
  SET: [90, 54, 90],
  'GET k1': [50, 30, 50],
});
const b = member(1, 'valkey-server 8.0.1', { product: 'valkey', version: '8.0.1' }, DEFAULT, {
  GET: [110, 66, 110],
  SET: [99, 59.4, 99],
});
const c = member(
  2,
  'redis-server 7.9.224 (8.0-m01) · io-threads 2',
  { product: 'redis', version: '7.9.224' },
  'io-threads 2 · no AOF · no RDB · tcp',
  { GET: [101, 59, 99], SET: [90, 54, 90] },
);

const ratio = (e: MatrixEntry | undefined) => (e?.kind === 'ratio' ? e : null);

describe('a group matrix', () => {
  it('names columns by server and setting, never by id', () => {
    expect([a, b, c].map(columnName)).toEqual([
      'redis 7.2.6',
      'valkey 8.0.1',
      'redis 7.9.224 (8.0-m01) · io-threads 2',
    ]);
  });

  it('sets each member over the baseline picked, round by round, on GET and SET only', () => {
    const m = matrixAgainst([a, b, c], 1);
    expect(m.baseline).toBe(1);
    expect(m.rows.map((r) => r.label)).toEqual(['GET', 'SET']);
    const get = m.rows[0]!.entries;
    expect(get[1]).toEqual({ kind: 'baseline', ops: 110 });
    const overB = ratio(get[0])!;
    expect(overB.ratio).toBeCloseTo(1 / 1.1, 10);
    // b was 10% faster in every round: the interval is that one figure, and excludes 1.
    expect(overB.low! <= overB.ratio && overB.ratio <= overB.high!).toBe(true);
    expect(overB.verdict.outcome).toBe('slower');
    expect(overB.basis).toBe('paired, 3 rounds');
    // c against a: the rounds disagree, so the interval holds 1 and nothing is said.
    const cOverA = ratio(matrixAgainst([a, b, c], 0).rows[0]!.entries[2])!;
    expect(cOverA.low! < 1 && 1 < cOverA.high!).toBe(true);
    expect(cOverA.verdict).toMatchObject({ outcome: 'no verdict', rule: 'paired-holds-1' });
  });

  it('says why an interval that excludes 1 gives no verdict: the warning on either side', () => {
    const flagged = member(1, 'valkey-server 8.0.1', { product: 'valkey', version: '8.0.1' }, DEFAULT, {
      GET: [110, 66, 110],
      SET: [99, 59.4, 99],
    });
    (flagged.cells[0] as { noVerdict: string[] }).noVerdict = ['DRIFT'];
    const e = ratio(matrixAgainst([a, flagged], 0).rows[0]!.entries[1])!;
    expect(e.verdict.rule).toBe('flagged');
    expect(e.flags).toEqual(['DRIFT']);
  });

  it('heads the page with the machine kind and what the configurations share and where they differ', () => {
    const head = groupHead([a, b, c]);
    expect(head.machine?.label).toBe('AMD EPYC · L2 512 KiB · 2 vCPU · KVM');
    expect(head.machine?.href).toMatch(/^\/machines\/amd-epyc-[0-9a-f]{8}\/$/);
    expect(head.config).toEqual({
      common: 'no AOF · no RDB · tcp',
      isDefault: false,
      differs: ['io-threads 1', 'io-threads 2'],
    });
    expect(head.matrices.map((m) => m.baseline)).toEqual([0, 1, 2]);
    expect(groupHead([a, b]).config).toEqual({ common: DEFAULT, isDefault: true, differs: [] });
  });
});
