import { describe, expect, it } from 'vitest';
import { findWorkload, type WorkloadEntry } from '../src/lib/explore.js';

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
