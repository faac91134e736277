import { deflateBombHistogram, emptyRunHistogram } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import { latencyPoints } from '../src/lib/charts/latency.js';
import { type CompareInput, compareResults } from '../src/lib/compare/compare.js';
import { filtersToSearch, matches, options, parseFilters } from '../src/lib/lists/filters.js';
import type { CellView } from '../src/lib/model/model.js';
import { sweepPoints } from '../src/lib/model/sweeps.js';
import { paths, slug } from '../src/lib/routes/routes.js';
import { indexRow } from './index-row.js';

const input = (
  id: string,
  fields: Record<string, string | null>,
  cells: CompareInput['cells'],
): CompareInput => ({
  id,
  name: id,
  kind: 'signed',
  // One machine kind and configuration unless a test says otherwise: across kinds there is no verdict.
  fields: { machineKind: 'kind A', configuration: 'default', ...fields },
  cells,
});
const cell = (fp: string, median: number, spread: number) => ({
  fp,
  label: fp.toUpperCase(),
  median,
  lo: median - spread,
  hi: median + spread,
  unstable: false,
});

describe('compareResults', () => {
  it('compares only equal workload fingerprints, with ratios and noise verdicts against the first', () => {
    const c = compareResults([
      input('a', { allocator: 'jemalloc', thp: 'never' }, [
        cell('get', 100, 2),
        cell('set', 100, 2),
        cell('only-a', 5, 1),
      ]),
      input('b', { allocator: 'libc', thp: 'never' }, [
        cell('get', 200, 4),
        cell('set', 101, 2),
        cell('only-b', 5, 1),
      ]),
    ]);
    expect(c.cells.map((x) => x.fp)).toEqual(['get', 'set']);
    expect(c.cells[0]!.ratios).toEqual([1, 2]);
    expect(c.cells[0]!.verdicts[1]).toMatchObject({ outcome: 'faster', rule: 'beyond-noise' });
    expect(c.cells[1]!.verdicts[1]).toMatchObject({ outcome: 'no verdict', rule: 'intervals-overlap' });
    expect(c.differing).toEqual([{ field: 'allocator', label: 'allocator', values: ['jemalloc', 'libc'] }]);
  });

  it('calls a slower cell slower, and gives no verdict without intervals', () => {
    const c = compareResults([
      input('a', {}, [cell('get', 100, 1), { ...cell('set', 100, 0) }]),
      input('b', {}, [cell('get', 50, 1), { ...cell('set', 50, 0) }]),
    ]);
    expect(c.cells.map((x) => x.verdicts[1]?.outcome)).toEqual(['slower', 'no verdict']);
    expect(c.cells[1]!.verdicts[1]?.rule).toBe('no-interval');
  });

  it('gives a cell whose replies were mostly errors (ERRORS) neither a ratio nor a verdict', () => {
    const c = compareResults([
      input('a', {}, [cell('get', 100, 1), cell('set', 100, 1)]),
      input('b', {}, [cell('get', 50, 1), { ...cell('set', 900, 1), errors: true }]),
      input('c', {}, [{ ...cell('get', 200, 1) }, cell('set', 50, 1)]),
    ]);
    expect(c.cells.map((x) => x.verdicts.map((v) => v?.outcome ?? null))).toEqual([
      [null, 'slower', 'faster'],
      [null, 'no verdict', 'slower'],
    ]);
    expect(c.cells[1]!.verdicts[1]?.text).toBe("no verdict: ERRORS in this result's cell");
    expect(c.cells[1]!.ratios).toEqual([1, null, 0.5]);
    const erroringBase = compareResults([
      input('a', {}, [{ ...cell('set', 900, 1), errors: true }]),
      input('b', {}, [cell('set', 100, 1)]),
    ]);
    expect(erroringBase.cells[0]!.verdicts).toEqual([
      null,
      { outcome: 'no verdict', rule: 'flagged', text: "no verdict: ERRORS in the baseline's cell" },
    ]);
    expect(erroringBase.cells[0]!.ratios).toEqual([null, null]);
  });

  it('finds nothing to compare when no workload matches, and refuses a single result', () => {
    expect(
      compareResults([input('a', {}, [cell('x', 1, 0)]), input('b', {}, [cell('y', 1, 0)])]).cells,
    ).toEqual([]);
    expect(() => compareResults([input('a', {}, [])])).toThrow(/two results or more/);
  });
});

const row = indexRow;

describe('filters', () => {
  it('round-trip through the URL and match exactly, a version also by its major line', () => {
    const f = parseFilters('?product=redis&version=7&clean=1&junk=1');
    expect(filtersToSearch(f)).toBe('?product=redis&version=7&clean=1');
    expect(matches(row({}), f)).toBe(true);
    expect(matches(row({ version: '7.0.15' }), f)).toBe(true);
    expect(matches(row({ version: '70.1' }), f)).toBe(false);
    expect(matches(row({ warnings: 2 }), f)).toBe(false);
    expect(matches(row({ product: 'valkey' }), f)).toBe(false);
    expect(matches(row({ product: null }), f)).toBe(false);
  });

  it('offer the values present, most common first', () => {
    expect(
      options(
        [row({ virt: 'vm' }), row({ virt: 'bare-metal' }), row({ virt: 'vm' }), row({ virt: null })],
        'virt',
      ),
    ).toEqual([
      { value: 'vm', text: 'vm' },
      { value: 'bare-metal', text: 'bare-metal' },
    ]);
  });

  it('offer machine kinds by their label, two kinds of one CPU model name apart, and filter by kind', () => {
    const a = { machine: 'amd-epyc-aaaa', machineLabel: 'AMD EPYC · L1d 32 KiB · L2 512 KiB · 2 vCPU · KVM' };
    const b = { machine: 'amd-epyc-bbbb', machineLabel: 'AMD EPYC · L1d 32 KiB · L2 1 MiB · 2 vCPU · KVM' };
    const rows = [row({ id: '1', ...a }), row({ id: '2', ...b }), row({ id: '3', ...b })];
    expect(options(rows, 'machine')).toEqual([
      { value: b.machine, text: b.machineLabel },
      { value: a.machine, text: a.machineLabel },
    ]);
    const f = parseFilters(`?machine=${a.machine}`);
    expect(rows.filter((r) => matches(r, f)).map((r) => r.id)).toEqual(['1']);
    expect(filtersToSearch(f)).toBe(`?machine=${a.machine}`);
  });
});

describe('slugs and paths', () => {
  it('keep plain names, and hash a name they had to change so two names never share a slug', () => {
    expect(slug('redis', '7.0.15')).toMatch(/^redis-7\.0\.15-[0-9a-f]{6}$/);
    expect(slug('Xeon E5 (v2)')).not.toBe(slug('Xeon E5 v2'));
    expect(slug('<img src=x onerror=alert(1)>')).toMatch(/^[a-z0-9.-]+$/);
    expect(slug('plain')).toBe('plain');
  });

  it('compare links are short: 12 characters per id', () => {
    expect(paths.compare(['a'.repeat(64), 'b'.repeat(64)])).toBe(
      `/compare/?r=${'a'.repeat(12)},${'b'.repeat(12)}`,
    );
  });
});

const c = (o: Partial<CellView>): CellView => ({
  idx: 0,
  label: 'GET',
  test: 'GET',
  workloadFingerprint: null,
  connections: 50,
  pipelineDepth: 1,
  pipelineMode: 'batch',
  valueSizeMin: 256,
  valueSizeMax: 256,
  keyspaceSize: 1_000_000,
  keyPattern: 'uniform',
  rateOpsPerSec: null,
  opsMedian: 100,
  opsLow: null,
  opsHigh: null,
  opsSpread: '1 trial, no spread',
  opsCv: null,
  trialOps: [100],
  unstable: false,
  errors: false,
  noVerdict: [],
  latencyUs: null,
  histogram: null,
  clientBound: null,
  crossCheck: null,
  params: null,
  slo: null,
  ...o,
});

// A histogram stored before ingest bounded them (issue 11, rows 1 and 2): the build must not hang
// on it, nor fail; the page plots the percentiles the cell states instead.
describe('latency points of a stored histogram that cannot be decoded', () => {
  it('fall back to the stated summary, for a run of 2^33 empty buckets and for a deflate bomb', () => {
    const latencyUs = { p50Us: 25, p99Us: 40, p999Us: 90, maxUs: 120 };
    for (const histogram of [
      emptyRunHistogram(33),
      emptyRunHistogram(29, [0, 5]),
      deflateBombHistogram(64 * 1024 ** 2),
    ])
      expect(latencyPoints(c({ histogram, latencyUs }))).toEqual([
        { series: 'GET', percentile: 50, latencyUs: 25 },
        { series: 'GET', percentile: 99, latencyUs: 40 },
        { series: 'GET', percentile: 99.9, latencyUs: 90 },
      ]);
  });
});

describe('sweeps', () => {
  it('join cells that differ only along the axis, and never mix factors on one line', () => {
    const cells = [
      c({}),
      c({ pipelineDepth: 16, opsMedian: 400 }),
      c({ pipelineDepth: 64, opsMedian: 500 }),
      // Another value size: a different one-factor experiment, not a point of the pipeline line.
      c({ pipelineDepth: 4, valueSizeMin: 4096, valueSizeMax: 4096 }),
      c({ test: 'SET', label: 'SET' }),
    ];
    const pts = sweepPoints(cells, 'pipeline');
    expect(pts.map((p) => [p.series, p.x])).toEqual([
      ['GET', 1],
      ['GET', 16],
      ['GET', 64],
    ]);
    expect(sweepPoints(cells, 'value-size')).toEqual([]);
  });
});
