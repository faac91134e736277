// What a forgery must not move, read from a built site: the home page's headline and version
// figures, every rank a result page prints, and every version page's ratios and verdicts. Each is the
// region's HTML as built, so "unchanged" means byte-identical.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';

export interface SummaryRegions {
  /** Page path → its regions' HTML, joined. */
  pages: Map<string, string>;
  /** The machine names of the home headline's rows, as a reader sees them. */
  headlineRows: string[];
}

function regionsOf(file: string, selectors: readonly string[]): string {
  const { document } = parseHTML(readFileSync(file, 'utf8'));
  // The lists of what a view left out name held results by design (methodology#corroboration): they
  // are not figures, and a new result may add itself there.
  for (const el of document.querySelectorAll('details.left-out')) el.remove();
  return selectors
    .flatMap((s) => [...document.querySelectorAll(s)].map((el) => `${s}: ${el.outerHTML}`))
    .join('\n');
}

/** The home page's figures (headline table and its verdict on signers, the versions by kind). */
const HOME = ['section.headline p.headline-top', 'table.headline-rank', 'table.version-verdicts'];
/** A version page's ratios and verdicts: the matrices, the versions by kind, and the side-by-side blocks. */
const VERSION = ['table.matrix', 'table.version-verdicts', 'table.versions'];
/** A result page's ranks. */
const RESULT = ['ul.ranks'];
/** An explorer view's bars, each a figure with its interval, results and signers. */
const EXPLORE = ['table.explore-bars'];

/** The regions of these pages of the site in `dir`: the home, every version and explorer page, and the results named. */
export function summaryRegions(
  dir: string,
  resultIds: readonly string[],
  versionSlugs?: readonly string[],
): SummaryRegions {
  const pages = new Map<string, string>();
  pages.set('/', regionsOf(join(dir, 'index.html'), HOME));
  const slugs =
    versionSlugs ??
    readdirSync(join(dir, 'versions')).filter((d) => existsSync(join(dir, 'versions', d, 'index.html')));
  for (const slug of slugs)
    pages.set(`/versions/${slug}/`, regionsOf(join(dir, 'versions', slug, 'index.html'), VERSION));
  for (const id of resultIds)
    pages.set(`/results/${id}/`, regionsOf(join(dir, 'results', id, 'index.html'), RESULT));
  for (const view of readdirSync(join(dir, 'explore'))) {
    const file = join(dir, 'explore', view, 'index.html');
    if (existsSync(file)) pages.set(`/explore/${view}/`, regionsOf(file, EXPLORE));
  }
  const { document } = parseHTML(readFileSync(join(dir, 'index.html'), 'utf8'));
  const headlineRows = [...document.querySelectorAll('table.headline-rank tbody tr')].map(
    (tr) => tr.querySelectorAll('td')[1]?.textContent?.trim() ?? '',
  );
  return { pages, headlineRows };
}

/** The pages whose regions differ between two reads, with the first differing line of each. */
export function changedPages(before: SummaryRegions, after: SummaryRegions): string[] {
  const out: string[] = [];
  for (const [path, html] of before.pages) {
    const now = after.pages.get(path);
    if (now === html) continue;
    const a = html.split('\n');
    const b = (now ?? '(page gone)').split('\n');
    const i = a.findIndex((line, j) => line !== b[j]);
    // Where the line first differs, with some context: regions are long one-line tables.
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    let at = 0;
    while (at < x.length && x[at] === y[at]) at++;
    const from = Math.max(0, at - 150);
    out.push(`${path}: …${x.slice(from, at + 150)} → …${y.slice(from, at + 150)}`);
  }
  return out;
}

/** The result ids a built site's group page links, in page order, each once. */
export function groupMembers(dir: string, groupId: string): string[] {
  const html = readFileSync(join(dir, 'groups', groupId, 'index.html'), 'utf8');
  return [...new Set([...html.matchAll(/href="\/results\/([0-9a-f]{64})\/"/g)].map((m) => m[1]!))];
}
