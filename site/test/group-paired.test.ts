import { describe, expect, it } from 'vitest';
import { compareResults, toCompareInput } from '../src/lib/compare/compare.js';
import { isInterleaved } from '../src/lib/groups/group-paired.js';
import type { CellView, ResultView } from '../src/lib/model/model.js';

/** A member with one GET cell of these per-round ops/s; only what the comparison reads is filled in. */
function member(id: string, index: number, trialOps: number[], interleaved: boolean): ResultView {
  const sorted = [...trialOps].sort((a, b) => a - b);
  const cell = {
    idx: 0,
    label: 'GET',
    test: 'GET',
    workloadFingerprint: `sha256:${'a'.repeat(64)}`,
    opsMedian: sorted[(sorted.length - 1) >> 1]!,
    opsLow: sorted[0]!,
    opsHigh: sorted.at(-1)!,
    opsSpread: `range of ${trialOps.length} trials`,
    trialOps,
    unstable: false,
    noVerdict: [],
  } as unknown as CellView;
  return {
    id,
    kind: 'signed',
    machine: {},
    machineKind: { key: 'm1|kind', label: 'kind A' },
    configuration: { key: 'c1|default', label: 'default', isDefault: true },
    server: {},
    link: {},
    suite: null,
    cells: [cell],
    runGroup: { id: '9f2c41d07a3be865', label: `member ${index}`, index, interleaved },
  } as unknown as ResultView;
}

const compare = (members: ResultView[]) => compareResults(members.map((m) => toCompareInput(m)));

describe('an interleaved run group', () => {
  // The machine was loaded in rounds 2 and 3; b was 5% faster in every round. The medians'
  // intervals overlap (no verdict by medians); the rounds, paired, leave no doubt.
  const load = [1, 0.6, 0.7, 1, 0.95];
  const a = load.map((f) => 100_000 * f);
  const b = load.map((f) => 105_000 * f);

  it('compares round by round: the paired ratio, its interval, and a verdict only it can give', () => {
    const c = compare([member('a', 0, a, true), member('b', 1, b, true)]);
    const cell = c.cells[0]!;
    expect(cell.ratios[1]).toBeCloseTo(1.05, 10);
    expect(cell.verdicts[1]).toEqual({
      outcome: 'faster',
      rule: 'paired-excludes-1',
      text: 'faster: paired interval 1.050–1.050 excludes 1 (5 rounds)',
    });
    expect(cell.paired![1]).toMatchObject({ rounds: 5 });
    expect(cell.paired![1]!.ci95Low!).toBeCloseTo(1.05, 10);
    expect(cell.paired![0]).toBeNull();
  });

  it('an A/A pair within its noise gets no verdict, its interval holding 1', () => {
    const c = compare([member('a', 0, [100, 120, 90, 110], true), member('b', 1, [103, 115, 92, 108], true)]);
    const p = c.cells[0]!.paired![1]!;
    expect(c.cells[0]!.verdicts[1]).toMatchObject({ outcome: 'no verdict', rule: 'paired-holds-1' });
    expect(p.ci95Low! < 1 && 1 < p.ci95High!).toBe(true);
  });

  it('a sequential group (no schedule) is compared by its medians, as before', () => {
    const members = [member('a', 0, a, false), member('b', 1, b, false)];
    expect(isInterleaved(members)).toBe(false);
    const cell = compare(members).cells[0]!;
    expect(cell.paired).toBeUndefined();
    expect(cell.verdicts[1]).toMatchObject({ outcome: 'no verdict', rule: 'intervals-overlap' });
  });

  it('a single round gives the ratio with no verdict', () => {
    const cell = compare([member('a', 0, [100], true), member('b', 1, [150], true)]).cells[0]!;
    expect(cell.ratios[1]).toBeCloseTo(1.5, 10);
    expect(cell.verdicts[1]).toMatchObject({ outcome: 'no verdict', rule: 'paired-one-round' });
    expect(cell.paired![1]).toEqual({ rounds: 1, ci95Low: null, ci95High: null });
  });
});

describe('a flagged member cell', () => {
  it('gets no verdict even where the paired interval excludes 1, and says which warning', () => {
    const a = member('a', 0, [100_000, 60_000, 70_000], true);
    const b = member('b', 1, [110_000, 66_000, 77_000], true);
    (b.cells[0] as { noVerdict: string[] }).noVerdict = ['BUSY_HOST'];
    const v = compare([a, b]).cells[0]!.verdicts[1]!;
    expect(v).toEqual({
      outcome: 'no verdict',
      rule: 'flagged',
      text: "no verdict: BUSY_HOST in this result's cell",
    });
  });
});
