import type { ResultV1 } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { comparisonTable } from '../src/run/group-comparison.js';

/** Just what the table reads of a result: cell labels, medians, client-bound flags, warnings. */
function doc(cells: [string, number][], errorsIn: string[] = []): ResultV1 {
  return {
    cells: cells.map(([label, median]) => ({
      label,
      opsPerSec: { median },
      saturation: { clientBound: false },
    })),
    warnings: errorsIn.map((cell) => ({ code: 'ERRORS', message: 'Most replies were errors.', cell })),
  } as unknown as ResultV1;
}

describe('the run group table', () => {
  it('shows a cell whose replies were mostly errors as errors, with no ratio against it or from it', () => {
    const table = comparisonTable('g1', [
      {
        label: 'a',
        doc: doc(
          [
            ['SET', 1000],
            ['GET', 2000],
          ],
          ['SET'],
        ),
      },
      {
        label: 'b',
        doc: doc([
          ['SET', 500],
          ['GET', 3000],
        ]),
      },
      {
        label: 'c',
        doc: doc(
          [
            ['SET', 900],
            ['GET', 1000],
          ],
          ['SET'],
        ),
      },
    ]);
    const [, , a, b, c] = table.split('\n');
    expect(a).toMatch(/^a\s+errors\s+2,000$/);
    expect(b).toMatch(/^b\s+500\s+3,000 \(1\.50x\)$/);
    expect(c).toMatch(/^c\s+errors\s+1,000 \(0\.50x\)$/);
  });
});
