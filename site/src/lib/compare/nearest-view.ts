import { h, submittedText, type TreeNode } from '../text/tree.js';
import type { NearPair } from './nearest.js';

/**
 * The compare view's answer when no cell matches: the nearest workloads, and the parameters that
 * differ. A tree (tree.ts), so the page and the browser script draw it alike. Browser-safe.
 */
export function noMatchView(pairs: readonly NearPair[], resultHref: (id: string) => string): TreeNode[] {
  const parts: TreeNode[] = [
    h(
      'p',
      { class: 'no-match' },
      'No cells match: these results ran no workload in common (equal workload fingerprints), so nothing is compared.',
    ),
  ];
  if (pairs.length === 0) {
    parts.push(
      h(
        'p',
        { class: 'muted' },
        'Nor can the nearest workloads be named: a result here has no workload parameters (an imported result).',
      ),
    );
    return parts;
  }
  const rows = pairs.map((p) =>
    h(
      'tr',
      {},
      h('td', {}, submittedText(p.base.label)),
      h(
        'td',
        {},
        submittedText(p.other.label),
        ' ',
        h('span', { class: 'muted' }, 'in '),
        h('a', { href: resultHref(p.other.id) }, h('code', {}, p.other.id.slice(0, 12))),
      ),
      h(
        'td',
        {},
        ...p.differs.flatMap((d, i) => [
          ...(i ? ['; '] : []),
          `${d.label}: `,
          submittedText(d.a),
          ' vs ',
          submittedText(d.b),
        ]),
      ),
    ),
  );
  parts.push(
    h('h3', {}, 'Nearest workloads'),
    h(
      'p',
      {},
      'The cells that come closest, and the parameters that would have to be equal for them to be compared:',
    ),
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { class: 'nearest' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, 'Baseline cell'),
            h('th', {}, 'Nearest cell'),
            h('th', {}, 'What differs (baseline vs other)'),
          ),
        ),
        h('tbody', {}, ...rows),
      ),
    ),
  );
  return parts;
}
