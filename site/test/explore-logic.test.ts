import { betweenRunNoise } from '@redis-benchdb/result/verdict';
import { describe, expect, it } from 'vitest';
import {
  type Bar,
  comparison,
  comparisonsNote,
  findWorkload,
  ratio,
  ratioCell,
  verdictFor,
  type WorkloadEntry,
} from '../src/lib/explore/explore.js';

// Which workload the explorer opens on, and which a partial address names: pure, on plain entries.

const entry = (id: string, o: Partial<WorkloadEntry>): WorkloadEntry => ({
  id,
  label: id,
  results: 8,
  page: `/explore/${id}/`,
  test: 'GET',
  pipeline: 1,
  mode: 'batch',
  valueMin: 256,
  valueMax: 256,
  keys: 100_000,
  pattern: 'uniform',
  conns: 50,
  rate: null,
  extra: [],
  ...o,
});

// The real dataset's order: every standard cell has the same number of results, and RPOP came first.
const catalog = [
  entry('rpop', { test: 'RPOP' }),
  entry('set-p16', { test: 'SET', pipeline: 16 }),
  entry('get-p16', { test: 'GET', pipeline: 16 }),
  entry('set-p1', { test: 'SET' }),
  entry('get-p1', { test: 'GET' }),
  entry('adhoc-get', { test: 'GET', page: null, conns: 4 }),
];

describe('findWorkload', () => {
  it('opens on the standard GET at the shallowest pipeline when results tie, not the first entry', () => {
    expect(findWorkload(catalog, {})?.id).toBe('get-p1');
  });

  it('still prefers the workload with the most results', () => {
    const more = [...catalog, entry('lrange', { test: 'LRANGE_100', results: 9 })];
    expect(findWorkload(more, {})?.id).toBe('lrange');
  });

  it('keeps to what the address names, and prefers GET then SET within it', () => {
    expect(findWorkload(catalog, { pipeline: 16 })?.id).toBe('get-p16');
    expect(findWorkload(catalog, { test: 'SET' })?.id).toBe('set-p1');
    expect(findWorkload(catalog, { conns: 4 })?.id).toBe('adhoc-get');
    expect(findWorkload(catalog, { pipeline: 64 })).toBeNull();
  });
});

// The explorer's verdicts are packages/result's rules on two bars of one machine kind and configuration.
const bar = (key: string, ops: number, o: Partial<Bar> = {}): Bar => ({
  key,
  server: `redis ${key}`,
  machine: 'AMD EPYC · 2 vCPU · KVM',
  machineKey: 'm1',
  configKey: 'c1',
  config: 'default',
  configDefault: true,
  spread: '95% interval of the median of 6 results',
  serverPath: '/versions/x/',
  machinePath: '/machines/x/',
  resultsPath: '/results/',
  ops,
  lo: ops * 0.99,
  hi: ops * 1.01,
  p50: null,
  p99: null,
  results: 6,
  signers: 1,
  unstable: 0,
  clientBound: 0,
  interval: true,
  // Six results 1% apart: a measured, small between-run noise.
  noise: betweenRunNoise([0.99, 1, 1.01, 0.99, 1, 1.01].map((x) => x * ops)),
  sample: 'r1',
  ...o,
});

describe('verdictFor', () => {
  const ref = bar('a', 100_000);
  it('says faster or slower when the intervals are apart and the difference beyond the noise', () => {
    expect(verdictFor(bar('b', 150_000), ref)).toMatch(
      /^faster: difference \+50\.0% beyond between-run noise/,
    );
    expect(verdictFor(bar('b', 60_000), ref)).toMatch(/^slower: /);
  });
  it('gives none within the intervals, on a flagged bar, on the reference, or across kinds', () => {
    expect(verdictFor(bar('b', 100_500), ref)).toMatch(
      /^no verdict: the two 95% intervals of the median of 6 results overlap/,
    );
    expect(verdictFor(bar('b', 150_000, { unstable: 1 }), ref)).toBe(
      "no verdict: UNSTABLE in this result's cell",
    );
    expect(verdictFor(ref, ref)).toBeNull();
    expect(verdictFor(bar('b', 150_000, { machineKey: 'm2' }), ref)).toBeNull();
  });

  it('judges a range of trials as a range, called so, never a 95% interval', () => {
    // One result of 3 trials each side: the rule is restated on the two ranges (issue 39).
    const range = (key: string, ops: number, lo: number, hi: number) =>
      bar(key, ops, { results: 1, spread: 'range of 3 trials', lo, hi, interval: false });
    const a = range('a', 100_000, 57_008, 78_969 + 30_000);
    expect(verdictFor(range('b', 150_000, 120_000, 160_000), a)).toMatch(
      /^faster: difference \+50\.0% beyond between-run noise .*; the two ranges of 3 trials apart$/,
    );
    expect(verdictFor(range('b', 105_000, 100_000, 110_000), a)).toBe(
      "no verdict: the two ranges of 3 trials overlap (each run's own noise)",
    );
  });

  it("takes a group's paired evidence where one holds both bars: the group page's figure and verdict", () => {
    const p = { n: 10, ratio: 0.953, ci95Low: 0.919, ci95High: 0.988, groupId: 'g1' };
    const base = bar('a', 100_000, { paired: { b: p } });
    const other = bar('b', 100_500);
    expect(comparison(other, base)).toMatchObject({ basis: 'paired', ratio: 0.953, low: 0.919, high: 0.988 });
    expect(verdictFor(other, base)).toBe('slower: paired interval 0.919–0.988 excludes 1 (10 rounds)');
    expect(ratioCell(other, base)).toBe('0.953× (0.919–0.988) paired, 10 rounds');
    expect(ratio(other, base)).toBe(0.953);
    // The other way round, with no evidence stored for it: the unpaired rule.
    expect(comparison(base, other)?.basis).toBe('unpaired');
    expect(comparisonsNote([base, other, bar('c', 1)], base)).toMatch(/^2 comparisons on this page/);
  });
});
