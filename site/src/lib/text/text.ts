import { stripForbiddenChars } from '@redis-benchdb/result';

/**
 * Text a submitter wrote (a CPU model, a version, a label) as the site shows it. Ingest refuses
 * control and bidi characters since result.v1 limited free text, but rows stored before that, and
 * imported files, may still hold them: a NUL or BEL makes a chart's SVG not XML (its PNG fails),
 * and an unpaired U+202E reverses the page's own words after it. So they are dropped on the way out
 * of the database, and what remains is shown isolated (<bdi>, see Submitted.astro) and cut if long.
 * Tab and newline stay: multi-line quotes and notes keep their lines.
 */
export function safeText(s: string): string {
  const clean = stripForbiddenChars(s);
  // Nothing result.v1 accepts that a page shows is longer; an older row's 1 MB CPU model would
  // otherwise weigh a page down several times over (heading title, environment table, charts).
  return clean.length > LONGEST_SHOWN ? shortText(clean, LONGEST_SHOWN).text : clean;
}

/** The most of one submitted string any page shows; the raw JSON download keeps all of it. */
export const LONGEST_SHOWN = 2000;

/** A copy with safeText applied to every string, except under the keys named (raw bytes kept for download). */
export function safeStrings<T>(value: T, keep: ReadonlySet<string> = new Set()): T {
  if (typeof value === 'string') return safeText(value) as T;
  if (Array.isArray(value)) return value.map((v) => safeStrings(v, keep)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = keep.has(k) ? v : safeStrings(v, keep);
  return out as T;
}

/** Past this many characters, a heading, list or table shows the start and the rest in its `title`. */
export const SHORT_TEXT = 120;

/** The text cut to `max` code points (ending in …), and the whole when it was cut. */
export function shortText(s: string, max = SHORT_TEXT): { text: string; full: string | undefined } {
  const chars = Array.from(s);
  if (chars.length <= max) return { text: s, full: undefined };
  return { text: `${chars.slice(0, max - 1).join('')}…`, full: s };
}
