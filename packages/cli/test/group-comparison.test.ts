import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResultV1 } from '@redis-benchdb/result';
import { pairedCellRatio } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { comparisonTable } from '../src/run/group-comparison.js';

// The terminal table of a group, on documents made from the schema's own example of a member.

const EXAMPLE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../schemas/examples/valid/run-group-interleaved.json',
);

/** A member whose SET cell ran one trial per round at these ops/s; schedule only when interleaved. */
function member(index: number, ops: number[], interleaved: boolean): { label: string; doc: ResultV1 } {
  const doc = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as ResultV1;
  const cell = doc.cells[0]!;
  cell.trials = ops.map((o) => ({ ...cell.trials[0]!, opsPerSec: o }));
  cell.trialCount = ops.length;
  const sorted = [...ops].sort((a, b) => a - b);
  cell.opsPerSec = { ...cell.opsPerSec, median: sorted[(ops.length - 1) / 2]! };
  cell.saturation = { ...cell.saturation, clientBound: false };
  const label = `member ${index}`;
  doc.runGroup = { ...doc.runGroup!, index, label };
  if (!interleaved) delete doc.runGroup.schedule;
  return { label, doc };
}

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

describe('group comparison', () => {
  // Rounds 2 and 3 ran while something else loaded the machine; the second member is 10% faster
  // in every round. Each member's own spread is wide (CV 40%), the paired ratio is 1.10x for sure.
  const base = [100_000, 50_000, 33_000, 100_000, 90_000];
  const faster = base.map((o) => o * 1.1);

  it('an interleaved group compares round by round: the paired ratio, its interval and a verdict', () => {
    const docs = [member(0, base, true), member(1, faster, true)];
    const p = pairedCellRatio(docs[0]!.doc.cells[0]!, docs[1]!.doc.cells[0]!)!;
    expect(p.n).toBe(5);
    expect(p.ratio).toBeCloseTo(1.1, 10);
    const table = comparisonTable('9f2c41d07a3be865', docs);
    expect(table).toMatch(/geometric mean of the per-round ratios .* 95% interval \(paired, 5 rounds\)/);
    expect(table).toMatch(/member 1 +99,000 \(1\.100x, 1\.100–1\.100, faster\)/);
  });

  it('an A/A group with noise says no more than the ratio and its interval, which holds 1', () => {
    const docs = [member(0, [100, 120, 90], true), member(1, [104, 113, 92], true)];
    const table = comparisonTable('9f2c41d07a3be865', docs);
    const m = /member 1 +\S+ \((\d\.\d{3})x, (\d\.\d{3})–(\d\.\d{3})\)$/m.exec(table);
    expect(m, table).not.toBeNull();
    expect(Number(m![2])).toBeLessThan(1);
    expect(Number(m![3])).toBeGreaterThan(1);
  });

  it('gives no verdict on a cell the site would not judge (BUSY_HOST, UNSTABLE...), and names the warning', () => {
    const docs = [member(0, base, true), member(1, faster, true)];
    docs[1]!.doc.warnings = [
      {
        code: 'BUSY_HOST',
        message: 'Other processes used 47% of the CPUs.',
        cell: docs[1]!.doc.cells[0]!.label,
      },
    ];
    const table = comparisonTable('9f2c41d07a3be865', docs);
    expect(table).toMatch(/member 1 +99,000 \(1\.100x, 1\.100–1\.100, no verdict: BUSY_HOST\)$/m);
    expect(table.split('\n').at(-1)).not.toMatch(/faster/);
  });

  it('a round missing on one side pairs the rounds both ran, and says how many', () => {
    const docs = [member(0, base, true), member(1, faster.slice(0, 2), true)];
    expect(pairedCellRatio(docs[0]!.doc.cells[0]!, docs[1]!.doc.cells[0]!)!.n).toBe(2);
    expect(comparisonTable('9f2c41d07a3be865', docs)).toMatch(/\(1\.100x, 1\.100–1\.100, faster, 2 rounds\)/);
  });

  it('a sequential group (no schedule) compares medians, as before', () => {
    const docs = [member(0, base, false), member(1, faster, false)];
    const table = comparisonTable('9f2c41d07a3be865', docs);
    expect(table).toMatch(/\(Nx\) is the ratio to the first row/);
    expect(table).toMatch(/member 1 +99,000 \(1\.10x\)$/m);
  });

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

  it('an interleaved group shows an erroring cell as errors, and pairs no ratio against it', () => {
    const docs = [member(0, base, true), member(1, faster, true)];
    docs[0]!.doc.warnings = [
      { code: 'ERRORS', message: 'Most replies were errors.', cell: docs[0]!.doc.cells[0]!.label },
    ];
    const table = comparisonTable('9f2c41d07a3be865', docs);
    expect(table).toMatch(/^member 0 +errors$/m);
    expect(table).toMatch(/^member 1 +99,000$/m);
  });
});
