/**
 * The filters kept in the URL (?product=redis&virt=vm&clean=1). Pure, and shipped to the browser:
 * the results page's script filters the index with the same code the tests run.
 */
export interface IndexRow {
  id: string;
  kind: 'signed' | 'imported';
  receivedAt: string;
  /**
   * The machine kind (packages/result identity.ts): its slug, as the machines page names it, and its
   * label. Two VMs sharing a CPU model name but not their caches are two kinds, two options.
   */
  machine: string | null;
  machineLabel: string | null;
  virt: string | null;
  product: string | null;
  version: string | null;
  allocator: string | null;
  link: string | null;
  profile: string | null;
  warnings: number;
  cells: number;
  /** Run date (measured), publication date as the source gives it (imported), or null. */
  date: string | null;
  /** An ad hoc run's cell labels (no suite), else null. */
  tests: string[] | null;
  /** The standard-v1 baseline cells' figures, where the result ran them (else null). */
  getOps: number | null;
  getP99Us: number | null;
  setOps: number | null;
  setP99Us: number | null;
  /** An ad hoc run's first cell's median ops/s: its key figure. */
  firstOps: number | null;
}

interface Filter {
  label: string;
  /** The value kept in the URL. */
  get: (r: IndexRow) => string | null;
  /** What the option shows, when not the value itself. */
  text?: (r: IndexRow) => string | null;
}

export const FILTERS = {
  product: { label: 'Server', get: (r: IndexRow) => r.product },
  version: { label: 'Version', get: (r: IndexRow) => r.version },
  machine: { label: 'Machine kind', get: (r: IndexRow) => r.machine, text: (r: IndexRow) => r.machineLabel },
  virt: { label: 'VM or bare metal', get: (r: IndexRow) => r.virt },
  allocator: { label: 'Allocator', get: (r: IndexRow) => r.allocator },
  link: { label: 'Link', get: (r: IndexRow) => r.link },
  profile: { label: 'Suite profile', get: (r: IndexRow) => r.profile },
} as const satisfies Record<string, Filter>;

export type FilterKey = keyof typeof FILTERS;
export const FILTER_KEYS = Object.keys(FILTERS) as FilterKey[];

export interface Filters {
  values: Partial<Record<FilterKey, string>>;
  /** "No warnings only". */
  clean: boolean;
}

export function parseFilters(search: string): Filters {
  const q = new URLSearchParams(search);
  const values: Partial<Record<FilterKey, string>> = {};
  for (const k of FILTER_KEYS) {
    const v = q.get(k);
    if (v) values[k] = v;
  }
  return { values, clean: q.get('clean') === '1' };
}

export function filtersToSearch(f: Filters): string {
  const q = new URLSearchParams();
  for (const k of FILTER_KEYS) if (f.values[k]) q.set(k, f.values[k]!);
  if (f.clean) q.set('clean', '1');
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function isActive(f: Filters): boolean {
  return f.clean || FILTER_KEYS.some((k) => f.values[k]);
}

/** Exact match on each set filter; a version filter of "7" also matches "7.0.15" (a major line). */
export function matches(r: IndexRow, f: Filters): boolean {
  if (f.clean && r.warnings > 0) return false;
  for (const k of FILTER_KEYS) {
    const want = f.values[k];
    if (!want) continue;
    const have = (FILTERS[k] as Filter).get(r);
    if (have === null) return false;
    if (k === 'version' ? !(have === want || have.startsWith(`${want}.`)) : have !== want) return false;
  }
  return true;
}

/** The distinct values of a filter in the index, most common first: the options of its <select>. */
export function options(rows: readonly IndexRow[], k: FilterKey): { value: string; text: string }[] {
  const f: Filter = FILTERS[k];
  const n = new Map<string, { text: string; count: number }>();
  for (const r of rows) {
    const v = f.get(r);
    if (v === null) continue;
    const o = n.get(v) ?? { text: f.text?.(r) ?? v, count: 0 };
    o.count++;
    n.set(v, o);
  }
  return [...n.entries()]
    .sort((a, b) => b[1].count - a[1].count || a[1].text.localeCompare(b[1].text))
    .map(([value, o]) => ({ value, text: o.text }));
}
