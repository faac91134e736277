import { allResults, machineSlugOf, machines, resultView, runGroups } from '../data/data.js';
import { isInterleaved } from '../groups/group-paired.js';
import { pinningWords } from '../model/pinning.js';
import {
  type DatasetGroup,
  type PublishedComparison,
  publishedComparisons,
  sameWorkload,
} from './published.js';

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

/**
 * Every known difference between a publication's setup and the group its rows are set beside (issue
 * 44): read from the imported files and the group's results, each side only as far as it states it.
 */
export function differences(c: PublishedComparison): string[] {
  const theirs = resultView(c.base.resultId);
  const row = c.rows.find((r) => r.match.kind === 'paired');
  const match = row?.match;
  if (!row || match?.kind !== 'paired') return [];
  const group = runGroups().find((g) => g.id === match.groupId);
  const ours = (group?.rows ?? []).map((r) => resultView(r.id));
  const oursCell = ours[0]?.cells.find((x) => sameWorkload(x, row));
  const keyspace = theirs.cells.find((x) => x.label === row.label)?.keyspaceSize ?? null;
  const builds = ours
    .filter(
      (m) => m.server.product === c.product && m.server.buildTag && m.server.buildTag !== m.server.version,
    )
    .map((m) => `${m.server.buildTag} reports ${m.server.version}`);
  const runs = theirs.source?.runs;
  return [
    `Runs and their spread: theirs ${runs ? `${runs} runs` : 'an unstated number of runs'}, one figure per row and no interval; ours ${match.rounds} interleaved rounds, each row's paired 95% interval.`,
    `Key space: theirs ${keyspace === null ? 'not stated' : `${keyspace} keys`}; ours ${oursCell?.keyspaceSize ? `${oursCell.keyspaceSize.toLocaleString('en-US')} keys` : 'not recorded'}.`,
    `Client: theirs ${theirs.source?.tool ?? 'not stated'}; ours redis-benchdb.`,
    `Machine and CPU architecture: theirs ${c.machine}; ours ${match.machine}${ours[0] ? `, ${pinningWords(ours[0].machine) ?? 'not pinned'}` : ''}.`,
    `Server build: theirs as released (not stated how built); ours built from each release's source archive${builds.length > 0 ? ` (${builds.join('; ')})` : ''}.`,
  ];
}
