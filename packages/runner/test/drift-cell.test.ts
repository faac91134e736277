import { DEFAULT_CELL_OPTIONS, SUITES, suiteCells } from '@redis-benchdb/engine';
import { describe, expect, it } from 'vitest';
import { driftCellIndex } from '../src/drift.js';

const cell = (o: Partial<typeof DEFAULT_CELL_OPTIONS>) => ({ options: { ...DEFAULT_CELL_OPTIONS, ...o } });

describe('the drift cell', () => {
  it('is the suite baseline GET, not the first SET that fills an empty key space', () => {
    for (const profile of ['quick', 'full'] as const) {
      const cells = suiteCells('standard-v1', profile);
      const at = driftCellIndex(cells);
      expect(cells[0]!.options.test, profile).toBe('SET');
      expect(cells[at]!.options.test, profile).toBe('GET');
      expect(cells[at]!.options.preload, profile).toBe(true);
    }
  });

  it('takes a PING, or a GET only over a preloaded key space, and otherwise the first cell', () => {
    expect(driftCellIndex([cell({ test: 'SET' }), cell({ test: 'PING_MBULK' })])).toBe(1);
    // Without a preload, a GET reads what the SET before it wrote: not state-free.
    expect(driftCellIndex([cell({ test: 'SET' }), cell({ test: 'GET', preload: false })])).toBe(0);
    expect(driftCellIndex([cell({ test: 'SET' }), cell({ test: 'GET', preload: true })])).toBe(1);
    expect(
      driftCellIndex([cell({ test: 'SET' }), cell({ test: 'GET', preload: true, setGetRatio: [1, 1] })]),
    ).toBe(0);
    expect(driftCellIndex([cell({ test: 'INCR' })])).toBe(0);
  });

  it('is never a search cell, whose trial a plain repeat does not measure again', () => {
    const search = (o: Partial<typeof DEFAULT_CELL_OPTIONS>) => ({ ...cell(o), slo: { budgetSec: 60 } });
    expect(driftCellIndex([search({ test: 'GET', preload: true }), cell({ test: 'SET' })])).toBe(1);
    expect(driftCellIndex([search({ test: 'GET', preload: true }), search({ test: 'SET' })])).toBe(-1);
  });
});

describe('the suite', () => {
  it('full (version 2) ends with GET and SET at p99<=1ms over the baseline; quick has no search', () => {
    const full = suiteCells('standard-v1', 'full');
    const searches = full.filter((c) => c.slo !== null);
    expect(searches.map((c) => c.label)).toEqual(['GET p99<=1ms', 'SET p99<=1ms']);
    for (const c of searches) {
      expect(c.slo).toEqual([{ percentile: 99, maxUs: 1000 }]);
      expect(c.options.connections).toBe(50);
      // The same workload as the baseline cell of the same test: only the objective differs.
      const plain = full.find((p) => p.label === c.options.test)!;
      expect(c.options).toEqual(plain.options);
    }
    expect(suiteCells('standard-v1', 'quick').every((c) => c.slo === null)).toBe(true);
    expect(SUITES['standard-v1']!.version).toBe(2);
  });
});
