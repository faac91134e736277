import type { SiteCellRow } from '@redis-benchdb/db';
import { describe, expect, it } from 'vitest';
import { matricesOf } from '../src/lib/versions/version-matrix.js';

let n = 0;
/** One admitted cell of a result that ran alone (no run group): the version rule's ratio of medians. */
function cell(
  product: string,
  version: string,
  label: string,
  ops: number,
  kind = { key: 'm1|a', label: 'Kind A' },
  config = { key: 'c1|default', label: 'io-threads 1', isDefault: true },
  more: Partial<SiteCellRow> = {},
): SiteCellRow {
  n++;
  return {
    resultId: `r${n}`,
    kind: 'signed',
    receivedAt: '2026-11-25T00:00:00Z',
    startedAt: '2026-11-25T00:00:00Z',
    cpuModel: 'AMD EPYC',
    virtualizationKind: 'vm',
    serverProduct: product,
    serverVersion: version,
    label,
    test: label.split(' ')[0]!,
    workloadFingerprint: `fp-${label}`,
    opsMedian: ops,
    opsCi95Low: ops * 0.99,
    opsCi95High: ops * 1.01,
    p99Us: null,
    unstable: 0,
    warningCodes: null,
    keyFingerprint: 'k',
    signer: 'project',
    copyOf: null,
    noVerdict: null,
    machineKey: kind.key,
    machineLabel: kind.label,
    configKey: config.key,
    configLabel: config.label,
    configDefault: config.isDefault ? 1 : 0,
    incomplete: 0,
    crossCheck: null,
    clientBound: 0,
    runGroupId: null,
    suiteProfile: 'quick',
    ...more,
  };
}

const B = { key: 'm1|b', label: 'Kind B' };
const IO2 = { key: 'c1|io2', label: 'io-threads 2', isDefault: false };

describe("a version page's matrices", () => {
  const cells = [
    cell('valkey', '8.0.1', 'GET', 100_000),
    cell('valkey', '8.0.1', 'SET', 90_000),
    cell('valkey', '7.2.7', 'GET', 200_000),
    cell('redis', '7.9.224', 'GET', 50_000),
    cell('redis', '7.2.6', 'GET', 101_000),
    // Left out: it drifted, so it is listed and never set beside anything.
    cell('redis', '6.0.20', 'GET', 10, undefined, undefined, { noVerdict: 'DRIFT' }),
    // Another kind and another configuration: their own matrices, never pooled with kind A's default.
    cell('valkey', '8.0.1', 'GET', 80_000, B),
    cell('valkey', '8.0.1', 'GET', 300_000, undefined, IO2),
    cell('redis', '7.4.1', 'GET', 290_000, undefined, IO2),
    // A kind without this version: no matrix on its page.
    cell('redis', '7.2.6', 'GET', 1, { key: 'm1|c', label: 'Kind C' }),
  ];
  const tags = (id: string) =>
    cells.find((c) => c.resultId === id)?.serverVersion === '7.9.224' ? '8.0-m01' : null;
  // Each result's three trials, ±1% around its median: the spread the rule reads of a one-result side.
  const trials = (id: string) => {
    const ops = cells.find((c) => c.resultId === id)!.opsMedian!;
    return { trials: [ops * 0.99, ops, ops * 1.01], interleaved: false };
  };
  const ms = matricesOf(cells, 'valkey', '8.0.1', tags, trials);

  it('has one per machine kind and configuration holding the version: default first, the fullest first', () => {
    expect(ms.map((m) => [m.machineLabel, m.configLabel])).toEqual([
      ['Kind A', 'io-threads 1'],
      ['Kind B', 'io-threads 1'],
      ['Kind A', 'io-threads 2'],
    ]);
  });

  it('puts this version first as the baseline, the others by product and version, named with their tag', () => {
    const { matrix } = ms[0]!;
    expect(matrix.baseline).toBe(0);
    expect(matrix.columns.map((c) => c.name)).toEqual([
      'valkey 8.0.1',
      'redis 7.2.6',
      'redis 7.9.224 (8.0-m01)',
      'valkey 7.2.7',
    ]);
    expect(ms[0]!.leftOut.text).toMatch(/^1 result left out: 1 drift/);
  });

  it("sets each version over this one by the rule: the ratio of medians, a verdict only beyond the kind's noise", () => {
    const get = ms[0]!.matrix.rows.find((r) => r.label === 'GET')!.entries;
    expect(get[0]).toEqual({ kind: 'baseline', ops: 100_000 });
    const [near, half, twice] = [get[1], get[2], get[3]].map((e) => (e?.kind === 'ratio' ? e : null));
    expect(near!.ratio).toBeCloseTo(1.01, 10);
    expect(near!.verdict.outcome).toBe('no verdict');
    expect(near!.low).toBeNull();
    expect(near!.instead).toBe('medians');
    expect(half!.verdict.outcome).toBe('slower');
    expect(twice!.verdict.outcome).toBe('faster');
    // No one else measured SET here: its row has this version's figure and no ratio.
    const set = ms[0]!.matrix.rows.find((r) => r.label === 'SET')!.entries;
    expect(set.map((e) => e.kind)).toEqual(['baseline', 'none', 'none', 'none']);
  });

  it('says where nothing else was measured', () => {
    expect(ms[1]!.matrix.columns.map((c) => c.name)).toEqual(['valkey 8.0.1']);
  });
});

// Issue 44, item 5: the same pair read 1.08x on one page and 0.90x on another, depending on the group
// picked, with no word on why. Each paired figure names its group and what the others that ran both gave.
describe("a version page's figure from one of several groups that ran both", () => {
  // Per-round ops/s of each result: group "g-new" has valkey 8.0.1 ahead of redis 7.4.1 by ~8%, the older
  // group "g-old" has it behind by ~10%; both 3 rounds, so the newer is shown (pair-evidence.ts).
  const rounds = new Map<string, number[]>();
  const grouped = (
    version: string,
    product: string,
    group: string,
    at: string,
    trials: number[],
    more = {},
  ) => {
    const c = cell(product, version, 'SET', trials[1]!, undefined, undefined, {
      runGroupId: group,
      startedAt: at,
      ...more,
    });
    rounds.set(c.resultId, trials);
    return c;
  };
  const read = (id: string) => ({ trials: rounds.get(id) ?? [], interleaved: true });
  const cells = [
    grouped('8.0.1', 'valkey', 'g-new-000000', '2026-11-25T10:00:00Z', [108_000, 108_100, 107_900]),
    grouped('7.4.1', 'redis', 'g-new-000000', '2026-11-25T10:00:00Z', [100_000, 100_050, 99_950]),
    grouped('8.0.1', 'valkey', 'g-old-000000', '2026-11-24T10:00:00Z', [90_000, 90_100, 89_900]),
    grouped('7.4.1', 'redis', 'g-old-000000', '2026-11-24T10:00:00Z', [100_000, 100_050, 99_950]),
  ];
  const entry = () => {
    const [m] = matricesOf(cells, 'valkey', '8.0.1', () => null, read);
    const e = m!.matrix.rows.find((r) => r.label === 'SET')!.entries[1]!;
    if (e.kind !== 'ratio') throw new Error(`no ratio: ${JSON.stringify(e)}`);
    return e;
  };

  it('names the group it shows and says the other group points the other way', () => {
    const e = entry();
    // redis 7.4.1 over valkey 8.0.1: about 1/1.08 in the newer group.
    expect(e.ratio).toBeCloseTo(100_000 / 108_000, 2);
    expect(e.source).toEqual({
      groupId: 'g-new-000000',
      rounds: 3,
      note: '2 groups ran both and point different ways: 0.93× here (3 rounds, the newest of equals), 1.11× in run group g-old-00 (3 rounds, faster: the other way).',
    });
  });

  it('says why a ratio of medians was not paired where groups ran both but left a side out', () => {
    // The newer group's redis cell drifted and the older group's valkey cell too: no group has both admitted.
    const drifted = cells.map((c, i) => (i === 1 || i === 2 ? { ...c, noVerdict: 'DRIFT' } : c));
    const [m] = matricesOf(drifted, 'valkey', '8.0.1', () => null, read);
    const e = m!.matrix.rows.find((r) => r.label === 'SET')!.entries[1]!;
    expect(e.kind === 'ratio' && e.instead).toBe('medians');
    expect(e.kind === 'ratio' && e.source?.groupId).toBeNull();
    expect(e.kind === 'ratio' && e.source?.note).toBe(
      "Not run together: the medians come from results of 2 run groups; 2 groups ran both (g-new-00, g-old-00), but left out one side's cell in each (listed below), so no pair.",
    );
  });
});
