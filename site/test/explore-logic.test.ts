import { betweenRunNoise } from '@redis-benchdb/result/verdict';
import { describe, expect, it } from 'vitest';
import { type Bar, findWorkload, verdictFor, type WorkloadEntry } from '../src/lib/explore.js';

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
  it('gives none within the intervals, on a flagged bar, on the reference, across kinds, or on a range', () => {
    expect(verdictFor(bar('b', 100_500), ref)).toMatch(/^no verdict: the two 95% intervals overlap/);
    expect(verdictFor(bar('b', 150_000, { unstable: 1 }), ref)).toBe(
      "no verdict: UNSTABLE in this result's cell",
    );
    expect(verdictFor(ref, ref)).toBeNull();
    expect(verdictFor(bar('b', 150_000, { machineKey: 'm2' }), ref)).toBeNull();
    expect(verdictFor(bar('b', 150_000, { interval: false, spread: 'range of 3 results' }), ref)).toBeNull();
  });
});
