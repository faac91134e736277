import type { SiteCellRow } from '@redis-benchdb/db';
import { cellLeftOut } from '../data/admit.js';

/**
 * The home page's headline: the standard baseline GET and SET per machine or per server version.
 * The rule, as the methodology page states it:
 *   - a cell counts once: not a copy of another result (db copies.ts), of the default configuration,
 *     and admitted (admit.ts: not disturbed, not client-bound, not incomplete...);
 *   - entries are machine kinds (identity.ts), never server versions: versions are set against each
 *     other only within one machine kind and configuration (version-verdicts.ts);
 *   - each signer's figure is the median of its results' medians, and an entry's figure is the median
 *     of its signers' figures, the lower middle one when their number is even: so no single signer
 *     can lift a figure above what another signer measured, however many results it sends;
 *   - entries from two signers or more are ranked first; an entry from one signer is ranked after
 *     them all, and marked "1 signer", whatever its figure.
 * A signer is a key's signer in the database (db migration 7): the project's data keys, one per
 * session that measured, are one signer, so a second data key never passes for a second submitter.
 * A key no one assigned is its own signer.
 * Each entry says how many results, signers and keys stand behind it. Pure: tested without a database.
 */
export interface HeadlineEntry {
  /** The machine or server version. */
  name: string;
  label: string;
  opsPerSec: number;
  results: number;
  /** Independent submitters: what the rule counts. */
  signers: number;
  /** Signing keys: as many as signers, or more when a signer used several. */
  keys: number;
}

/**
 * Whether a cell may stand behind a headline figure: a signed, uncopied figure of the default
 * configuration (packages/result identity.ts) that the admission rule admits (admit.ts).
 */
export function countsForHeadline(c: SiteCellRow): boolean {
  if (c.opsMedian === null || c.copyOf !== null || c.signer === null) return false;
  return c.configDefault === 1 && cellLeftOut(c).length === 0;
}

/** The lower middle value: for two signers, the smaller figure, so one signer cannot raise it. */
export function lowerMedian(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** One entry per name and label, its figure by the rule above. */
export function headlineEntries(
  cells: readonly SiteCellRow[],
  nameOf: (c: SiteCellRow) => string,
): HeadlineEntry[] {
  type Group = { name: string; label: string; bySigner: Map<string, number[]>; keys: Set<string> };
  const groups = new Map<string, Group>();
  for (const c of cells) {
    if (!countsForHeadline(c)) continue;
    const name = nameOf(c);
    const k = `${name}\u0000${c.label}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { name, label: c.label, bySigner: new Map(), keys: new Set() }));
    const list = g.bySigner.get(c.signer!);
    if (list) list.push(c.opsMedian!);
    else g.bySigner.set(c.signer!, [c.opsMedian!]);
    g.keys.add(c.keyFingerprint ?? c.signer!);
  }
  return [...groups.values()].map(({ name, label, bySigner, keys }) => ({
    name,
    label,
    opsPerSec: lowerMedian([...bySigner.values()].map(lowerMedian)),
    results: [...bySigner.values()].reduce((n, l) => n + l.length, 0),
    signers: bySigner.size,
    keys: keys.size,
  }));
}

/**
 * The names in headline order, by their `label` entry (GET): two signers or more first, then one
 * signer; within each, the higher figure first (ties by name, so the order is stable between builds).
 */
export function rankNames(entries: readonly HeadlineEntry[], label: string): string[] {
  return entries
    .filter((e) => e.label === label)
    .sort(
      (a, b) =>
        Number(b.signers >= 2) - Number(a.signers >= 2) ||
        b.opsPerSec - a.opsPerSec ||
        a.name.localeCompare(b.name),
    )
    .map((e) => e.name);
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "5 results, 3 signers", "1 result, 1 signer", and the keys when a signer used several: "2 results, 1 signer (2 keys)". */
export function backing(e: Pick<HeadlineEntry, 'results' | 'signers' | 'keys'>): string {
  const keys = e.keys === e.signers ? '' : ` (${plural(e.keys, 'key')})`;
  return `${plural(e.results, 'result')}, ${plural(e.signers, 'signer')}${keys}`;
}
