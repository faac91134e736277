import { ops, us } from '../model/format.js';
import { paths, SHORT_ID } from '../routes/paths.js';
import { dateText, productName, resultTitle, whatRan } from '../text/titles.js';
import type { IndexRow } from './filters.js';
import type { SortKey } from './sort.js';

/**
 * One row of a results list, as text: the server-rendered table and the lists' script (which
 * re-renders rows when filtering or sorting) both draw it from here, so they cannot drift apart.
 */
export interface ListRow {
  id: string;
  href: string;
  shortId: string;
  kind: IndexRow['kind'];
  warnings: number;
  /** The whole title, for the link's tooltip: server, machine, date, what ran, key figure. */
  title: string;
  date: string;
  what: string;
  server: string;
  /** Allocator and link, under the server. */
  serverNote: string;
  /** The machine kind's label (identity.ts) and its machines page. */
  machine: string | null;
  machineHref: string | null;
  figures: { key: SortKey; text: string }[];
}

/** The baseline figures a list shows, in column order: what it can be sorted by, besides the date. */
export const FIGURE_COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'get-ops', label: 'GET ops/s' },
  { key: 'get-p99', label: 'GET p99' },
  { key: 'set-ops', label: 'SET ops/s' },
  { key: 'set-p99', label: 'SET p99' },
];

export function listRow(r: IndexRow): ListRow {
  return {
    id: r.id,
    href: paths.result(r.id),
    shortId: r.id.slice(0, SHORT_ID),
    kind: r.kind,
    warnings: r.warnings,
    title: resultTitle({
      kind: r.kind,
      product: r.product,
      version: r.version,
      cpu: r.machineLabel,
      date: r.date,
      profile: r.profile,
      tests: r.tests,
      figure: keyFigure(r),
    }),
    date: dateText(r.date, r.kind),
    what: whatRan({ profile: r.profile, tests: r.tests }),
    server: `${productName(r.product)}${r.version ? ` ${r.version}` : ''}`,
    serverNote: [r.allocator, r.link].filter(Boolean).join(' · '),
    machine: r.machineLabel,
    machineHref: r.machine ? paths.machine(r.machine) : null,
    figures: [
      { key: 'get-ops', text: ops(r.getOps) },
      { key: 'get-p99', text: us(r.getP99Us) },
      { key: 'set-ops', text: ops(r.setOps) },
      { key: 'set-p99', text: us(r.setP99Us) },
    ],
  };
}

/** The baseline GET, else SET, else an ad hoc or imported run's first cell. */
export function keyFigure(r: IndexRow): { label: string; ops: number } | null {
  if (r.getOps !== null) return { label: 'GET', ops: r.getOps };
  if (r.setOps !== null) return { label: 'SET', ops: r.setOps };
  if (r.firstOps !== null && r.tests?.[0]) return { label: r.tests[0], ops: r.firstOps };
  return null;
}

/** The values a row is sorted by, as data attributes (data-sort-get-ops="65602"): sorting in place reads them. */
export function sortData(r: IndexRow): Record<string, string> {
  const v = (n: number | string | null) => (n === null ? '' : String(n));
  return {
    'data-sort-date': v(r.date),
    'data-sort-get-ops': v(r.getOps),
    'data-sort-get-p99': v(r.getP99Us),
    'data-sort-set-ops': v(r.setOps),
    'data-sort-set-p99': v(r.setP99Us),
  };
}

/**
 * A result's warning badge. A list knows how many kinds of warning a result has (one UNSTABLE
 * however many cells it marks), its own page every warning: "6 kinds of warning" in a list and
 * "61 warnings, 6 kinds" on the page, so the two never seem to disagree. Null when there are none.
 */
export function warningBadge(kinds: number, total?: number): { text: string; title: string } | null {
  if (kinds === 0 && !total) return null;
  const k = `${kinds} kind${kinds === 1 ? '' : 's'}`;
  const title = 'run-wide warnings count once; a per-cell warning counts once per cell it marks';
  if (total === undefined) return { text: `${k} of warning`, title: `${k} of warning; ${title}` };
  return { text: `${total} warning${total === 1 ? '' : 's'}, ${k}`, title };
}
