import { h, submittedText, type TreeNode } from '../text/tree.js';
import { type ComparedCell, type Comparison, formatRatio } from './compare.js';

/**
 * The compare page's answer, said before its tables (issue 28): for each result against the
 * baseline, how many cells with the same workload are faster, slower or without a verdict, and the
 * baseline GET and SET ratios with their verdicts. Counted from the same Comparison the cell table
 * shows, so the two cannot disagree. Browser-safe, like compare-view.ts.
 */
export interface Tally {
  faster: number;
  slower: number;
  none: number;
  /** The median of the cells' ratios (null when no cell has one). */
  medianRatio: number | null;
  /** When every cell is without a verdict for the same reason (e.g. "machine and version differ"). */
  sharedReason: string | null;
}

export function tally(c: Comparison, i: number): Tally {
  const cells = c.cells.filter((cell) => cell.verdicts[i]);
  const count = (o: string) => cells.filter((cell) => cell.verdicts[i]!.outcome === o).length;
  const ratios = cells
    .map((cell) => cell.ratios[i])
    .filter((r): r is number => typeof r === 'number')
    .sort((a, b) => a - b);
  const reasons = new Set(cells.map((cell) => reasonOf(cell, i)));
  const none = count('no verdict');
  return {
    faster: count('faster'),
    slower: count('slower'),
    none,
    medianRatio: ratios.length === 0 ? null : ratios[Math.floor((ratios.length - 1) / 2)]!,
    sharedReason: none === cells.length && none > 0 && reasons.size === 1 ? [...reasons][0]! : null,
  };
}

/** "machine and version differ": a verdict's text after its outcome. */
function reasonOf(cell: ComparedCell, i: number): string {
  const t = cell.verdicts[i]!.text;
  return t.slice(t.indexOf(':') + 1).trim();
}

const KEY_CELLS = ['GET', 'SET'];

export function comparisonSummary(c: Comparison, result: (id: string) => string): TreeNode[] {
  const base = c.results[0]!;
  const items = c.results.slice(1).map((r, k) => {
    const i = k + 1;
    const t = tally(c, i);
    const total = t.faster + t.slower + t.none;
    const keys = KEY_CELLS.map((label) => c.cells.find((cell) => cell.label === label))
      .filter((cell): cell is ComparedCell => cell?.verdicts[i] != null)
      .map((cell) =>
        h(
          'span',
          { class: 'key-ratio', 'data-cell': cell.label },
          `${cell.label} `,
          h('strong', {}, formatRatio(cell.ratios[i] ?? null)),
          ' ',
          h('span', { class: `verdict ${CLASS[cell.verdicts[i]!.outcome]}` }, cell.verdicts[i]!.outcome),
        ),
      );
    return h(
      'li',
      { 'data-result': r.id },
      h('a', { href: result(r.id) }, submittedText(r.name)),
      ' ',
      h('code', {}, r.id.slice(0, 12)),
      ': ',
      total === 0
        ? 'no cell ran the same workload as the baseline (the nearest workloads are named below).'
        : h(
            'span',
            { class: 'tally' },
            h('strong', {}, `${t.faster} faster, ${t.slower} slower`),
            `, ${t.none} without a verdict, of ${total} cell${total === 1 ? '' : 's'} with the same workload`,
            t.medianRatio === null ? '' : `; median ratio ${formatRatio(t.medianRatio)}`,
            t.sharedReason ? ` (no verdict on any: ${t.sharedReason})` : '',
            '.',
          ),
      ...(keys.length > 0 ? [h('br'), ...keys.flatMap((k, n) => (n > 0 ? [' · ', k] : [k]))] : []),
    );
  });
  return [
    h(
      'section',
      { class: 'compare-summary' },
      h('h2', {}, 'Verdict'),
      h(
        'p',
        {},
        'Against the baseline, ',
        h('a', { href: result(base.id) }, submittedText(base.name)),
        ' ',
        h('code', {}, base.id.slice(0, 12)),
        ':',
      ),
      h('ul', { class: 'compare-tally' }, ...items),
    ),
  ];
}

const CLASS = { faster: 'faster', slower: 'slower', 'no verdict': 'noise' } as const;
