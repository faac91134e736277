import { intervalText, multiplicityOf, NO_VERDICT_WARNINGS } from '@redis-benchdb/result/verdict';
import { ops } from '../model/format.js';
import { h, submittedText, type TreeNode } from '../text/tree.js';
import { type Comparison, formatRatio, type Verdict } from './compare.js';
import type { NearPair } from './nearest.js';
import { noMatchView } from './nearest-view.js';

/**
 * The comparison as a page shows it: the results, what differs, and the cell-by-cell table with each
 * verdict and the rule that gave it. One pure function for both places it appears: a run group's
 * page (built to HTML by CompareTable.astro) and the compare page (built in the browser by
 * scripts/compare.ts), so the two cannot say different things. Browser-safe, like compare.ts.
 */
export interface CompareLinks {
  result: (id: string) => string;
  /** The methodology page: the verdict rules and what each warning means. */
  methodology: string;
}

/** `nearest`: when no cell matches, the nearest workloads (nearest.ts), which the view then names. */
export function comparisonView(
  c: Comparison,
  links: CompareLinks,
  nearest: readonly NearPair[] = [],
): TreeNode[] {
  return [
    h('h2', {}, 'Results compared'),
    h(
      'ol',
      { class: 'compared' },
      ...c.results.map((r, i) =>
        h(
          'li',
          {},
          h('a', { href: links.result(r.id) }, submittedText(r.name)),
          ' ',
          h('code', {}, r.id.slice(0, 12)),
          ...(r.kind === 'imported' ? [' ', h('span', { class: 'badge imported' }, 'imported')] : []),
          ...(i === 0 ? [h('span', { class: 'muted' }, ' (baseline)')] : []),
        ),
      ),
    ),
    h('h2', {}, 'What differs'),
    c.differing.length === 0
      ? h('p', {}, 'Nothing in the recorded environment differs.')
      : h(
          'table',
          { class: 'differing' },
          h(
            'thead',
            {},
            h('tr', {}, h('th', {}, 'Field'), ...c.results.map((r) => h('th', {}, ...columnHead(r)))),
          ),
          h(
            'tbody',
            {},
            ...c.differing.map((d) =>
              h('tr', {}, h('th', {}, d.label), ...d.values.map((v) => h('td', {}, submittedText(v)))),
            ),
          ),
        ),
    h('h2', {}, 'Cell by cell'),
    ...(c.cells.length === 0
      ? noMatchView(nearest, links.result)
      : [h('div', { class: 'scroll' }, cellTable(c, links))]),
    ...notes(c, links),
  ];
}

function cellTable(c: Comparison, links: CompareLinks): TreeNode {
  const head = h(
    'tr',
    {},
    h('th', {}, 'Cell'),
    ...c.results.map((r, i) =>
      h(
        'th',
        { class: 'num' },
        ...columnHead(r),
        ...(i > 0 ? [h('span', { class: 'col-note' }, 'ratio, verdict')] : []),
      ),
    ),
  );
  const rows = c.cells.map((cell) =>
    h(
      'tr',
      {},
      h('td', {}, submittedText(cell.label)),
      ...cell.values.map((v, i) => {
        const verdict = cell.verdicts[i];
        if (i === 0 || !v || !verdict) return h('td', { class: 'num' }, v ? ops(v.median) : '—');
        const p = cell.paired?.[i];
        // A paired rule's text gives the interval and rounds; otherwise (flagged, one round) say them here.
        const pairedNote =
          p && !verdict.rule.startsWith('paired-')
            ? [h('span', { class: 'muted paired' }, ` ${pairedText(p)}`)]
            : [];
        return h(
          'td',
          { class: 'num' },
          ops(v.median),
          ' ',
          h('strong', {}, formatRatio(cell.ratios[i] ?? null, p?.ci95Low ?? null, p?.ci95High ?? null)),
          ...pairedNote,
          ' ',
          ...verdictNodes(verdict, links),
        );
      }),
    ),
  );
  return h('table', { class: 'compare-cells' }, h('thead', {}, head), h('tbody', {}, ...rows));
}

/**
 * A column is named by its server and setting (issue 28: never by a hash alone), the id under it in
 * small type: two results of one server on one machine still tell apart, and the name's words wrap,
 * so eleven members fit 1280.
 */
function columnHead(r: Comparison['results'][number]): TreeNode[] {
  return [submittedText(r.name), h('code', { class: 'col-id' }, r.id.slice(0, 12))];
}

/** "(paired, 5 rounds; 95% interval 0.97–1.09)". */
function pairedText(p: { rounds: number; ci95Low: number | null; ci95High: number | null }): string {
  const interval =
    p.ci95Low !== null && p.ci95High !== null ? `; 95% interval ${intervalText(p.ci95Low, p.ci95High)}` : '';
  return `(paired, ${p.rounds} round${p.rounds === 1 ? '' : 's'}${interval})`;
}

const CLASS = { faster: 'faster', slower: 'slower', 'no verdict': 'noise' } as const;

/** "faster" (coloured), then the rule's reason in small print, each warning code linked to its meaning. */
function verdictNodes(v: Verdict, links: CompareLinks): TreeNode[] {
  const reason = v.text.slice(v.text.indexOf(':') + 1).trim();
  return [
    h('span', { class: `verdict ${CLASS[v.outcome]}`, 'data-rule': v.rule }, v.outcome),
    h('span', { class: 'verdict-rule' }, ...linkCodes(reason, links)),
  ];
}

const CODES = new RegExp(`\\b(${NO_VERDICT_WARNINGS.join('|')})\\b`);

function linkCodes(text: string, links: CompareLinks): TreeNode[] {
  return text
    .split(CODES)
    .filter(Boolean)
    .map((part) =>
      (NO_VERDICT_WARNINGS as readonly string[]).includes(part)
        ? h('a', { href: `${links.methodology}#warning-${part}` }, h('code', {}, part))
        : part,
    );
}

function notes(c: Comparison, links: CompareLinks): TreeNode[] {
  const paired = c.cells.some((cell) => cell.paired);
  const out: TreeNode[] = [];
  // Every verdict the table gives; a pair of one interleaved group counts as that group's.
  const multiplicity = multiplicityOf(
    c.cells.flatMap((cell) =>
      cell.verdicts.flatMap((v, i) =>
        v && v.rule !== 'different-kind' ? [{ groupId: cell.paired?.[i] ? c.results[0]!.id : null }] : [],
      ),
    ),
  );
  if (multiplicity) out.push(h('p', { class: 'muted multiplicity' }, multiplicity));
  if (paired)
    out.push(
      h(
        'p',
        { class: 'muted' },
        'These results ran interleaved: every server was up at once and each cell ran round by round, one trial of each in every round, in a random order. Each ratio is the geometric mean of the per-round ratios to the baseline, and its paired 95% interval is its own evidence: “faster” and “slower” mean that interval excludes 1. Whatever else the machine did during a round weighed on every member alike, so it cancels out of that round’s ratio.',
      ),
    );
  out.push(
    h(
      'p',
      { class: 'muted' },
      `${paired ? 'For results that did not run together, ratios' : 'Ratios'} are medians over the baseline’s median. “Faster” and “slower” are said only when the two cells’ spreads are apart (each run’s own noise: the 95% interval of the median from 6 trials on, else the whole range of the trials, never called an interval) and the difference is beyond the between-run noise of the two environments: measured from their repeated results in this database, or a stated default where there are too few. A cell flagged ${NO_VERDICT_WARNINGS.join(', ')} gets no verdict. Beside each verdict, the rule that gave it. `,
      h('a', { href: links.methodology }, 'How figures are measured and judged'),
      '.',
    ),
  );
  return out;
}
