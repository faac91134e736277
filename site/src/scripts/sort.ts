import type { IndexRow } from '../lib/lists/filters';
import {
  nextSort,
  parseSort,
  SORT_KEYS,
  SORTS,
  type Sort,
  type SortKey,
  sortRows,
  withSort,
} from '../lib/lists/sort';
import { el } from './dom';

/**
 * Sort buttons on a results table's headers (th[data-sort]). Without JavaScript there are none and
 * the table keeps its static order. `onSort` gets the sort a click asks for.
 */
export function addSortButtons(
  table: HTMLTableElement,
  current: Sort | null,
  onSort: (s: Sort) => void,
): void {
  for (const th of table.querySelectorAll<HTMLTableCellElement>('th[data-sort]')) {
    const key = th.dataset.sort as SortKey;
    if (!SORT_KEYS.includes(key)) continue;
    const on = current?.key === key;
    if (on) th.setAttribute('aria-sort', current.order === 'asc' ? 'ascending' : 'descending');
    th.dataset.label ??= th.textContent ?? key;
    const label = th.dataset.label;
    const button = el(
      'button',
      { type: 'button', class: 'sort', title: `Sort by ${SORTS[key].label}` },
      label,
      el('span', { 'aria-hidden': 'true' }, on ? (current.order === 'asc' ? ' ▲' : ' ▼') : ' ↕'),
    );
    button.addEventListener('click', () => onSort(nextSort(current, key)));
    th.replaceChildren(button);
  }
}

/** The values a row carries for sorting (ResultsTable's data-sort-* attributes), as an index row. */
function rowValues(tr: HTMLTableRowElement): IndexRow {
  const num = (k: string) => (tr.dataset[k] ? Number(tr.dataset[k]) : null);
  return {
    date: tr.dataset.sortDate || null,
    getOps: num('sortGetOps'),
    getP99Us: num('sortGetP99'),
    setOps: num('sortSetOps'),
    setP99Us: num('sortSetP99'),
  } as IndexRow;
}

/** Tables with data-sortable="rows": sorted in place, the order in the URL so a shared link keeps it. */
export function initSortRows(): void {
  for (const table of document.querySelectorAll<HTMLTableElement>('table.results[data-sortable=rows]')) {
    const tbody = table.tBodies[0];
    if (!tbody) continue;
    const original = [...tbody.rows];
    const apply = (s: Sort | null) => {
      const rows = original.map((tr) => Object.assign(rowValues(tr), { tr }));
      tbody.replaceChildren(...(s ? sortRows(rows, s) : rows).map((r) => r.tr));
      addSortButtons(table, s, (next) => {
        history.replaceState(null, '', withSort(location.search, next) || location.pathname);
        apply(next);
      });
    };
    apply(parseSort(location.search));
  }
}
