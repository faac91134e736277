import type { IndexRow } from './filters.js';

/**
 * Sorting the results lists, kept in the URL (?sort=get-ops&order=desc) like the filters. Pure,
 * and shipped to the browser: the lists' script sorts with the same code the tests run. Without
 * JavaScript a list keeps its static order (newest received first).
 */
export const SORTS = {
  date: { label: 'Date', get: (r: IndexRow) => r.date, first: 'desc' },
  'get-ops': { label: 'GET ops/s', get: (r: IndexRow) => r.getOps, first: 'desc' },
  'get-p99': { label: 'GET p99', get: (r: IndexRow) => r.getP99Us, first: 'asc' },
  'set-ops': { label: 'SET ops/s', get: (r: IndexRow) => r.setOps, first: 'desc' },
  'set-p99': { label: 'SET p99', get: (r: IndexRow) => r.setP99Us, first: 'asc' },
} as const;

export type SortKey = keyof typeof SORTS;
export const SORT_KEYS = Object.keys(SORTS) as SortKey[];

export interface Sort {
  key: SortKey;
  order: 'asc' | 'desc';
}

/** The sort in a URL's query, or null for the static order (also for a key this site does not know). */
export function parseSort(search: string): Sort | null {
  const q = new URLSearchParams(search);
  const key = q.get('sort');
  if (!key || !(SORT_KEYS as string[]).includes(key)) return null;
  const order = q.get('order');
  return {
    key: key as SortKey,
    order: order === 'asc' || order === 'desc' ? order : SORTS[key as SortKey].first,
  };
}

/** `search` with the sort set (or removed, for null), other parameters kept. */
export function withSort(search: string, s: Sort | null): string {
  const q = new URLSearchParams(search);
  q.delete('sort');
  q.delete('order');
  if (s) {
    q.set('sort', s.key);
    q.set('order', s.order);
  }
  const out = q.toString();
  return out ? `?${out}` : '';
}

/** The sort a click on a column's button asks for: its natural order first, then the other way. */
export function nextSort(current: Sort | null, key: SortKey): Sort {
  if (current?.key === key) return { key, order: current.order === 'asc' ? 'desc' : 'asc' };
  return { key, order: SORTS[key].first };
}

/** A sorted copy; rows without the figure go last in either order, ties keep their order. */
export function sortRows<T extends IndexRow>(rows: readonly T[], s: Sort): T[] {
  const get = SORTS[s.key].get;
  const sign = s.order === 'asc' ? 1 : -1;
  return rows
    .map((r, i) => ({ r, i, v: get(r) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === b.v ? a.i - b.i : a.v === null ? 1 : -1;
      const c = typeof a.v === 'number' ? a.v - (b.v as number) : String(a.v).localeCompare(String(b.v));
      return c * sign || a.i - b.i;
    })
    .map((x) => x.r);
}
