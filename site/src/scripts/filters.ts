import {
  FILTER_KEYS,
  filtersToSearch,
  type IndexRow,
  isActive,
  matches,
  parseFilters,
} from '../lib/lists/filters';
import { listRow, sortData, warningBadge } from '../lib/lists/list-row';
import { parseSort, sortRows, withSort } from '../lib/lists/sort';
import { el, submitted } from './dom';
import { addSortButtons } from './sort';

const LIMIT = 500;

/**
 * Progressive enhancement of the results page: with filters or a sort in the URL, fetch the compact
 * index and show the matching results in that order (the static page lists the newest, unfiltered).
 * Rows are built with DOM text nodes, never innerHTML: the index holds submitters' strings.
 */
export async function initFilters(): Promise<void> {
  const form = document.querySelector<HTMLFormElement>('form.filters');
  if (!form) return;
  const f = parseFilters(location.search);
  const sort = parseSort(location.search);
  for (const k of FILTER_KEYS) {
    const sel = form.elements.namedItem(k) as HTMLSelectElement | null;
    if (sel && f.values[k]) {
      if (![...sel.options].some((o) => o.value === f.values[k]))
        sel.add(new Option(f.values[k]!, f.values[k]!));
      sel.value = f.values[k]!;
    }
  }
  (form.elements.namedItem('clean') as HTMLInputElement).checked = f.clean;
  form.addEventListener('change', () => {
    const next = parseFilters(
      new URLSearchParams(new FormData(form) as unknown as Record<string, string>).toString(),
    );
    location.search = withSort(filtersToSearch(next), sort);
  });
  const table = document.querySelector<HTMLTableElement>('table.results');
  if (table)
    addSortButtons(table, sort, (next) => {
      location.search = withSort(location.search, next);
    });
  if (!isActive(f) && !sort) return;
  const status = document.querySelector('.filter-status');
  const tbody = table?.tBodies[0];
  if (!tbody || !status) return;
  const all = (await (await fetch(form.dataset.index!)).json()) as IndexRow[];
  const matching = all.filter((r) => matches(r, f));
  const rows = sort ? sortRows(matching, sort) : matching;
  tbody.replaceChildren(...rows.slice(0, LIMIT).map(rowElement));
  const order = sort
    ? `, by ${table.querySelector('th[aria-sort] button')?.firstChild?.textContent ?? sort.key} (${sort.order === 'asc' ? 'lowest' : 'highest'} first; results without it last)`
    : '';
  status.textContent = `${rows.length} results ${isActive(f) ? 'match' : 'in all'}${order}${rows.length > LIMIT ? `; the first ${LIMIT} are shown` : ''}.`;
  for (const nav of document.querySelectorAll('nav.pages')) nav.remove();
}

/** A row as ResultsTable.astro draws it, from the same ListRow. */
function rowElement(r: IndexRow): HTMLTableRowElement {
  const l = listRow(r);
  const box = el('input', {
    type: 'checkbox',
    name: 'r',
    value: l.shortId,
    'aria-label': `compare ${l.shortId}`,
  });
  const result: (Node | string)[] = [
    el('a', { href: l.href, title: l.title }, l.date),
    ' · ',
    submitted(l.what),
    el('br'),
    el('code', {}, l.shortId),
    ' ',
    l.kind === 'imported'
      ? el('span', { class: 'badge imported' }, 'imported')
      : el('span', { class: 'badge verified' }, 'signed'),
  ];
  const badge = warningBadge(l.warnings);
  if (badge) result.push(' ', el('span', { class: 'badge warn', title: badge.title }, badge.text));
  const under = (main: string | null, note: string | null) =>
    note ? [submitted(main), el('br'), el('span', { class: 'muted' }, submitted(note))] : [submitted(main)];
  const cells = [
    el('td', {}, box),
    el('td', {}, ...result),
    el('td', {}, ...under(l.server, l.serverNote)),
    el(
      'td',
      {},
      l.machineHref
        ? el('a', { href: l.machineHref }, submitted(l.machine))
        : submitted(l.machine ?? 'machine unknown'),
    ),
    ...l.figures.map((x) => el('td', { class: 'num' }, x.text)),
  ];
  return el('tr', { 'data-id': l.id, ...sortData(r) }, ...cells) as HTMLTableRowElement;
}
