/**
 * Pages the build could not render. One result the site cannot draw (a row stored before a check
 * existed, a histogram that does not decode) must not fail the build for every other result: its
 * page is left out, the build says which and why on a line of its own, and the integration lists
 * them in `build-report.json` beside the pages (site/integration/index.mjs).
 */
export interface SkippedPage {
  /** The page's path, e.g. `/results/<id>/`. */
  page: string;
  /** The first line of the error. */
  error: string;
}

const KEY = '__redisBenchdbSkippedPages';

export function skippedPages(): SkippedPage[] {
  const g = globalThis as unknown as Record<string, SkippedPage[]>;
  g[KEY] ??= [];
  return g[KEY];
}

/**
 * Record a page left out, print why, and return what the page returns instead of HTML: Astro writes
 * no file for an empty body.
 */
export function skipPage(page: string, error: unknown): Response {
  // A worker's error arrives as its stack in a new Error's message: its first line says what failed.
  const text = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  skippedPages().push({ page, error: text });
  console.error(`[redis-benchdb site] skipped ${page}: ${text}`);
  return new Response(null, { status: 500 });
}
