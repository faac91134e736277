import type { SiteCellRow } from '@redis-benchdb/db';

/**
 * The home page's headline: the standard baseline GET and SET per machine or per server version.
 * The rule, as the methodology page states it:
 *   - a cell counts once: not a copy of another result (db copies.ts), not mostly errors (left out
 *     by the query), not disturbed while it ran (BUSY_HOST, CPU_STEAL, DRIFT);
 *   - each key's figure is the median of its results' medians, and an entry's figure is the median
 *     of its keys' figures, the lower middle one when their number is even: so no single key can
 *     lift a figure above what another key measured, however many results it sends;
 *   - entries with two keys or more are ranked first; an entry from one key is ranked after them
 *     all, and marked "1 key", whatever its figure.
 * Each entry says how many results and keys stand behind it. Pure: tested without a database.
 */
export interface HeadlineEntry {
  /** The machine or server version. */
  name: string;
  label: string;
  opsPerSec: number;
  results: number;
  keys: number;
}

/** Warnings that say a cell's figure was disturbed while it ran: not the setup's own figure. */
const DISTURBED = ['BUSY_HOST', 'CPU_STEAL', 'DRIFT'];

/** Whether a cell may stand behind a headline figure. */
export function countsForHeadline(c: SiteCellRow): boolean {
  if (c.opsMedian === null || c.copyOf !== null || c.keyFingerprint === null) return false;
  const flags = c.noVerdict?.split(',') ?? [];
  return !flags.some((f) => DISTURBED.includes(f));
}

/** The lower middle value: for two keys, the smaller figure, so one key cannot raise it. */
export function lowerMedian(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** One entry per name and label, its figure by the rule above. */
export function headlineEntries(
  cells: readonly SiteCellRow[],
  nameOf: (c: SiteCellRow) => string,
): HeadlineEntry[] {
  const groups = new Map<string, { name: string; label: string; byKey: Map<string, number[]> }>();
  for (const c of cells) {
    if (!countsForHeadline(c)) continue;
    const name = nameOf(c);
    const k = `${name}\u0000${c.label}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { name, label: c.label, byKey: new Map() }));
    const list = g.byKey.get(c.keyFingerprint!);
    if (list) list.push(c.opsMedian!);
    else g.byKey.set(c.keyFingerprint!, [c.opsMedian!]);
  }
  return [...groups.values()].map(({ name, label, byKey }) => ({
    name,
    label,
    opsPerSec: lowerMedian([...byKey.values()].map(lowerMedian)),
    results: [...byKey.values()].reduce((n, l) => n + l.length, 0),
    keys: byKey.size,
  }));
}

/**
 * The names in headline order, by their `label` entry (GET): two keys or more first, then one key;
 * within each, the higher figure first (ties by name, so the order is stable between builds).
 */
export function rankNames(entries: readonly HeadlineEntry[], label: string): string[] {
  return entries
    .filter((e) => e.label === label)
    .sort(
      (a, b) =>
        Number(b.keys >= 2) - Number(a.keys >= 2) ||
        b.opsPerSec - a.opsPerSec ||
        a.name.localeCompare(b.name),
    )
    .map((e) => e.name);
}

/** "5 results, 3 keys", "1 result, 1 key". */
export function backing(e: Pick<HeadlineEntry, 'results' | 'keys'>): string {
  return `${e.results} result${e.results === 1 ? '' : 's'}, ${e.keys} key${e.keys === 1 ? '' : 's'}`;
}
