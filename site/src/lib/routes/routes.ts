import { createHash } from 'node:crypto';

// The paths live apart from slug(), which needs node:crypto: the lists' browser script links rows with them too.
export { paths, SHORT_ID } from './paths.js';

/**
 * A URL-safe slug for a name that came from a submitter. Anything outside [a-z0-9.] becomes "-";
 * when that changed the name, a short hash of the exact name keeps two names apart that would
 * otherwise share a slug ("Xeon E5 (v2)" and "Xeon E5 v2").
 */
export function slug(...parts: (string | null | undefined)[]): string {
  const exact = parts.map((p) => p ?? 'unknown').join(' ');
  const clean = exact
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  if (clean === exact) return clean || 'unknown';
  return `${clean || 'x'}-${createHash('sha256').update(exact).digest('hex').slice(0, 6)}`;
}
