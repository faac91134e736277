import { humanDate, opsTick } from '../charts/axes.js';

/**
 * A result's title: what ran where, when, and one figure, so that four runs of one version on one
 * CPU no longer read alike ("Redis 7.0.15 on AMD EPYC · 4 Mar 2025 · quick profile · GET 118k
 * ops/s"). Pure, and shipped to the browser with the lists' script.
 */
export interface TitleParts {
  kind: 'signed' | 'imported';
  product: string | null;
  version: string | null;
  cpu: string | null;
  /** Run date (ISO), or an imported result's publication date as its source gives it (2013, 2013-07). */
  date: string | null;
  profile: string | null;
  /** Cell labels of a run without a suite profile (ad hoc, imported). */
  tests: readonly string[] | null;
  /** The baseline GET's ops/s, else SET's; else the first cell's, named by its label. */
  figure: { label: string; ops: number } | null;
}

const PRODUCT_NAMES: Record<string, string> = {
  redis: 'Redis',
  valkey: 'Valkey',
  keydb: 'KeyDB',
  dragonfly: 'Dragonfly',
};

/** A product as people write it: "Redis", "Valkey", "KeyDB". */
export function productName(p: string | null): string {
  return p ? (PRODUCT_NAMES[p] ?? p) : 'Unknown server';
}

export function resultTitle(p: TitleParts, cut: (s: string) => string = (s) => s): string {
  const server = `${productName(p.product)}${p.version ? ` ${cut(p.version)}` : ''}`;
  const parts = [`${server} on ${cut(p.cpu ?? 'unknown CPU')}`, dateText(p.date, p.kind), whatRan(p)];
  if (p.figure) parts.push(figureText(p.figure));
  return parts.join(' · ');
}

/** "GET 118k ops/s". */
export function figureText(f: { label: string; ops: number }): string {
  return `${f.label.length > 40 ? `${f.label.slice(0, 39)}…` : f.label} ${opsTick(f.ops)} ops/s`;
}

/** "quick profile", or an ad hoc run's tests: "GET, SET", "HSET user:… name …" (the first three). */
export function whatRan(p: Pick<TitleParts, 'profile' | 'tests'>): string {
  if (p.profile) return `${p.profile} profile`;
  const t = p.tests ?? [];
  if (t.length === 0) return 'no cells';
  const shown = t.slice(0, 3).map((l) => (l.length > 40 ? `${l.slice(0, 39)}…` : l));
  return `${shown.join(', ')}${t.length > 3 ? ` and ${t.length - 3} more` : ''}`;
}

/**
 * A date as a person reads it: "4 Mar 2025"; an imported result's publication date as precise as
 * its source ("2013", "Jul 2013"), and "undated" when the source gives none.
 */
export function dateText(date: string | null, kind: 'signed' | 'imported'): string {
  if (!date) return kind === 'imported' ? 'publication undated' : 'date unknown';
  const prefix = kind === 'imported' ? 'published ' : '';
  if (/^\d{4}$/.test(date)) return `${prefix}${date}`;
  if (/^\d{4}-\d{2}$/.test(date)) return `${prefix}${humanDate(`${date}-01T00:00:00Z`, 'month')}`;
  return `${prefix}${humanDate(date)}`;
}
