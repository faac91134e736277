import { betweenRunNoise } from '@redis-benchdb/result';
import type { CompareInput } from '../src/lib/compare/compare.js';

// What compareResults takes, for the tests of the views drawn from it (the comparison view, the
// compare page's verdict).

/** A signed result: its id `id` repeated to 64 characters, of one machine kind unless `kind` says. */
export const compareInput = (
  id: string,
  name: string,
  cells: CompareInput['cells'],
  kind = 'kind A',
): CompareInput => ({
  id: id.repeat(64).slice(0, 64),
  name,
  kind: 'signed',
  fields: { machineKind: kind, configuration: 'default' },
  cells,
});

/** A cell with a 95% interval of ±1% around its median, and no between-run noise measured. */
export const compareCell = (fp: string, median: number, warnings: string[] = []) => ({
  fp,
  label: fp.toUpperCase(),
  median,
  lo: median * 0.99,
  hi: median * 1.01,
  unstable: false,
  warnings,
  noise: betweenRunNoise([]),
});
