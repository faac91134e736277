import { allResults, machineSlugOf, machines, resultView, runGroups } from './data.js';
import { isInterleaved } from './group-paired.js';
import { type DatasetGroup, type PublishedComparison, publishedComparisons } from './published.js';

let built: PublishedComparison[] | null = null;
/** The published comparisons, matched against the interleaved groups (read once per build). */
export function comparisons(): PublishedComparison[] {
  if (built) return built;
  const titles = new Map(machines().map((b) => [b.slug, b.title]));
  const groups: DatasetGroup[] = runGroups().flatMap((g) => {
    const members = g.rows.map((r) => resultView(r.id));
    if (!isInterleaved(members)) return [];
    return [{ id: g.id, machine: titles.get(machineSlugOf(g.rows[0]!)) ?? 'machine unknown', members }];
  });
  const imported = allResults()
    .filter((r) => r.kind === 'imported')
    .map((r) => resultView(r.id));
  built = publishedComparisons(imported, groups);
  return built;
}

let named: Set<string> | null = null;
/**
 * Whether a published comparison names this version: read from the imported results alone (a few),
 * so that every version page can ask without reading the groups.
 */
export function inPublishedComparison(product: string | null, version: string | null): boolean {
  if (!named) {
    const imported = allResults()
      .filter((r) => r.kind === 'imported')
      .map((r) => resultView(r.id));
    named = new Set(
      publishedComparisons(imported, []).flatMap((c) =>
        [c.base.version, c.other.version].map((v) => `${c.product} ${v}`),
      ),
    );
  }
  return named.has(`${product} ${version}`);
}
