/** How a chart writes its numbers, and how wide its text runs: for axes, tables and layout. */

/** "1.2M", "350k", "950": ops/s for an axis or a table. */
export function formatOps(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 1 : 2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e5 ? 0 : 1)}k`;
  return n.toFixed(0);
}

/** An average character at font size 1, for DejaVu Sans (the PNG's font) and system fonts alike: a little wide. */
export const CHAR_EM = 0.62;
