import { DEFAULT_CELL_OPTIONS, suiteCells } from '@redis-benchdb/engine';
import { describe, expect, it } from 'vitest';
import { driftCellIndex } from '../src/run/drift.js';

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
});
