import { pairedRounds } from '@redis-benchdb/result';
import type { CellView, ResultView } from '../model/model.js';
import { compareVersions } from '../versions/versions.js';

/**
 * Published comparisons set beside the dataset. A publication that prints two versions of one
 * server side by side (valkey-io/valkey#1026: 8.0.0-rc2 against 7.2.6) is imported as one result
 * per version; here its rows are paired up again, and each row looks for the same workload in an
 * interleaved group of data/ that ran both versions, whose paired ratio and interval it is set
 * beside. The workloads must be equal in command, pipeline depth, value size and connections; a
 * row without such a cell says why, naming what is missing.
 */

/** One workload of a publication with both versions' figures. */
export interface PublishedRow {
  label: string;
  test: string;
  pipeline: number | null;
  valueBytes: number | null;
  connections: number | null;
  baseOps: number;
  otherOps: number;
  /** other / base, as published. */
  ratio: number;
  match: RowMatch;
}

/** A row's evidence in data/, or why there is none. */
export type RowMatch =
  | {
      kind: 'paired';
      groupId: string;
      machine: string;
      rounds: number;
      ratio: number;
      ci95Low: number | null;
      ci95High: number | null;
      /** Whether the published ratio lies inside the dataset's interval (null when it has none). */
      inside: boolean | null;
      /** The cells' own flags that weigh on the figure (CLIENT_BOUND, UNSTABLE...). */
      flags: string[];
    }
  | { kind: 'none'; reason: string };

export interface PublishedComparison {
  title: string;
  url: string | null;
  machine: string;
  product: string;
  base: { version: string; resultId: string };
  other: { version: string; resultId: string };
  rows: PublishedRow[];
}

/** A group of data/: its members (interleaved), and the name of the machine it ran on. */
export interface DatasetGroup {
  id: string;
  machine: string;
  members: ResultView[];
}

const sourceKey = (r: ResultView) => `${r.source?.title ?? ''}\u0000${r.source?.url ?? ''}`;

/** The workload a published row names, in words: "SET at pipeline 10, 16-byte values, 50 connections". */
export function workloadWords(
  r: Pick<PublishedRow, 'test' | 'pipeline' | 'valueBytes' | 'connections'>,
): string {
  const parts = [
    r.pipeline === null ? 'pipeline not stated' : `pipeline ${r.pipeline}`,
    r.valueBytes === null ? 'value size not stated' : `${r.valueBytes}-byte values`,
    r.connections === null ? 'connections not stated' : `${r.connections} connections`,
  ];
  return `${r.test} at ${parts.join(', ')}`;
}

/** Whether a dataset cell ran the published workload (every stated parameter equal). */
export function sameWorkload(
  cell: CellView,
  row: Pick<PublishedRow, 'test' | 'pipeline' | 'valueBytes' | 'connections'>,
): boolean {
  return (
    cell.test.toUpperCase() === row.test &&
    row.pipeline !== null &&
    cell.pipelineDepth === row.pipeline &&
    row.valueBytes !== null &&
    cell.valueSizeMin === row.valueBytes &&
    cell.valueSizeMax === row.valueBytes &&
    row.connections !== null &&
    cell.connections === row.connections
  );
}

/** A member in the default configuration (identity.ts: io-threads 1, no persistence, TCP, standalone, jemalloc). */
function defaultConfiguration(r: ResultView): boolean {
  return r.configuration?.isDefault === true;
}

function matchRow(
  row: Omit<PublishedRow, 'match'>,
  product: string,
  base: string,
  other: string,
  groups: readonly DatasetGroup[],
): RowMatch {
  const find = (g: DatasetGroup, version: string) =>
    g.members.find(
      (m) =>
        m.server.product === product &&
        // A release candidate reports a development version (valkey 8.0.0-rc2 says 7.9.240): its build's tag names it.
        (m.server.version === version || m.server.buildTag === version) &&
        defaultConfiguration(m),
    );
  const both = groups.filter((g) => find(g, base) && find(g, other));
  const pair = `${product} ${base} and ${product} ${other}`;
  if (both.length === 0)
    return {
      kind: 'none',
      reason: `no interleaved group in data/ ran ${pair} together (io-threads 1, no persistence)`,
    };
  for (const g of both) {
    const a = find(g, base)!.cells.find((c) => sameWorkload(c, row));
    const b = find(g, other)!.cells.find((c) => sameWorkload(c, row));
    if (!a || !b || a.errors || b.errors) continue;
    // Round by round, as every view pairs a group's members (packages/result pairedRounds).
    const p = pairedRounds(a.trialOps, b.trialOps);
    if (!p) continue;
    const inside =
      p.ci95Low === null || p.ci95High === null ? null : row.ratio >= p.ci95Low && row.ratio <= p.ci95High;
    const flags = [
      ...new Set([
        ...a.noVerdict,
        ...b.noVerdict,
        ...(a.clientBound || b.clientBound ? ['CLIENT_BOUND'] : []),
      ]),
    ];
    return {
      kind: 'paired',
      groupId: g.id,
      machine: g.machine,
      rounds: p.n,
      ratio: p.ratio,
      ci95Low: p.ci95Low,
      ci95High: p.ci95High,
      inside,
      flags,
    };
  }
  return {
    kind: 'none',
    reason: `${both.length === 1 ? 'the group' : `the ${both.length} groups`} that ran ${pair} ran no ${workloadWords(row)}`,
  };
}

/**
 * Every publication among the imported results that prints two versions of one product, as its
 * rows (labels both files share, in the older version's order) matched against the groups.
 */
export function publishedComparisons(
  imported: readonly ResultView[],
  groups: readonly DatasetGroup[],
): PublishedComparison[] {
  const bySource = new Map<string, ResultView[]>();
  for (const r of imported) {
    if (r.kind !== 'imported' || !r.source || !r.server.product || !r.server.version) continue;
    bySource.set(sourceKey(r), [...(bySource.get(sourceKey(r)) ?? []), r]);
  }
  const out: PublishedComparison[] = [];
  for (const rs of bySource.values()) {
    const versions = new Map(rs.map((r) => [`${r.server.product} ${r.server.version}`, r]));
    if (versions.size !== 2 || rs.length !== 2) continue;
    const [a, b] = rs as [ResultView, ResultView];
    if (a.server.product !== b.server.product) continue;
    const [base, other] = compareVersions(a.server.version, b.server.version) <= 0 ? [a, b] : [b, a];
    const otherCells = new Map(other.cells.map((c) => [c.label, c]));
    const product = base.server.product!;
    const rows = base.cells.flatMap((c) => {
      const o = otherCells.get(c.label);
      if (!o || !(c.opsMedian > 0) || !(o.opsMedian > 0)) return [];
      const row = {
        label: c.label,
        test: c.test.toUpperCase(),
        pipeline: c.pipelineDepth,
        valueBytes: c.valueSizeMin !== null && c.valueSizeMin === c.valueSizeMax ? c.valueSizeMin : null,
        connections: c.connections,
        baseOps: c.opsMedian,
        otherOps: o.opsMedian,
        ratio: o.opsMedian / c.opsMedian,
      };
      return [{ ...row, match: matchRow(row, product, base.server.version!, other.server.version!, groups) }];
    });
    out.push({
      title: base.source!.title,
      url: base.source!.url,
      machine: describedMachine(base),
      product,
      base: { version: base.server.version!, resultId: base.id },
      other: { version: other.server.version!, resultId: other.id },
      rows,
    });
  }
  return out;
}

/** The machine in the publication's own words (imported.v1 machine.description), else its CPU model. */
function describedMachine(r: ResultView): string {
  try {
    const d = (JSON.parse(r.raw) as { machine?: { description?: unknown } }).machine?.description;
    if (typeof d === 'string' && d) return d;
  } catch {}
  return r.machine.cpuModel ?? 'machine not stated';
}

/** The plain statement for one row. */
export function rowStatement(row: PublishedRow): string {
  const m = row.match;
  if (m.kind === 'none') return `No match: ${m.reason}.`;
  if (m.inside === null) return `One round on ${m.machine}: no interval to set the published change against.`;
  return `The published change lies ${m.inside ? 'inside' : 'outside'} our interval on ${m.machine}.`;
}

/**
 * The line a published comparison leads with (issue 44, item 2): it counts only the rows both sides
 * may judge (matched, an interval, and no flag on our cells that the site's rule would refuse a verdict
 * for), names the rows where the direction reverses, and how far the published changes reach.
 */
export interface PublishedSummary {
  rows: number;
  matched: number;
  /** Matched rows with an interval and no flag: the ones the site's rule may judge. */
  judged: number;
  inside: number;
  outside: number;
  /** Matched rows left unjudged, with the flags that keep them out. */
  refused: { count: number; flags: string[] };
  /** Judged rows whose published change and our interval lie on opposite sides of 1. */
  reversals: { label: string; published: number; ours: number }[];
  /** The largest published change, as a fraction (0.0518 for ±5.18%). */
  widest: number;
}

export function publishedSummary(c: Pick<PublishedComparison, 'rows'>): PublishedSummary {
  const matched = c.rows.filter((r) => r.match.kind === 'paired');
  const judgeable = (r: PublishedRow) =>
    r.match.kind === 'paired' && r.match.flags.length === 0 && r.match.inside !== null;
  const judged = matched.filter(judgeable);
  const refused = matched.filter((r) => !judgeable(r));
  const reversals = judged.flatMap((r) => {
    const m = r.match as Extract<RowMatch, { kind: 'paired' }>;
    const oursUp = m.ci95Low! > 1;
    const oursDown = m.ci95High! < 1;
    const reverses = (oursUp && r.ratio < 1) || (oursDown && r.ratio > 1);
    return reverses ? [{ label: r.label, published: r.ratio, ours: m.ratio }] : [];
  });
  return {
    rows: c.rows.length,
    matched: matched.length,
    judged: judged.length,
    inside: judged.filter((r) => r.match.kind === 'paired' && r.match.inside === true).length,
    outside: judged.filter((r) => r.match.kind === 'paired' && r.match.inside === false).length,
    refused: {
      count: refused.length,
      flags: [...new Set(refused.flatMap((r) => (r.match.kind === 'paired' ? r.match.flags : [])))].sort(),
    },
    reversals,
    widest: Math.max(0, ...c.rows.map((r) => Math.abs(r.ratio - 1))),
  };
}

/** "+4.0%" / "−4.3%": a ratio as a signed change. */
export const signedChange = (x: number) => `${x >= 1 ? '+' : '−'}${Math.abs((x - 1) * 100).toFixed(1)}%`;

/** The summary in one sentence, as /published/ and the methodology both print it. */
export function summaryText(s: PublishedSummary): string {
  const parts = [
    `Of ${s.rows} published rows, ${s.matched} ran here; ${s.judged} of them both sides may judge, and on those the published change lies inside our 95% interval on ${s.inside} and outside on ${s.outside}.`,
  ];
  if (s.refused.count > 0)
    parts.push(
      `${s.refused.count} more ${s.refused.count === 1 ? 'is' : 'are'} not judged: our cells carry ${s.refused.flags.join(', ') || 'no interval'}.`,
    );
  if (s.reversals.length > 0)
    parts.push(
      `The direction reverses on ${s.reversals.map((r) => `${r.label} (theirs ${signedChange(r.published)}, ours ${signedChange(r.ours)})`).join(', ')}.`,
    );
  parts.push(`The published changes reach ±${(s.widest * 100).toFixed(2)}%.`);
  return parts.join(' ');
}
