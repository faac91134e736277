import type { CellFigureRow, SiteResultRow } from '@redis-benchdb/db';

/**
 * Server versions side by side, one machine at a time: the version page's core view. Pure: the
 * rows, cells and server facts come in (versions-data.ts reads them), blocks go out.
 *
 * What is compared with what:
 * - only results of one machine (the site's machine identity: CPU model and VM or bare metal);
 * - within it, only results of one server configuration and link (io-threads, persistence,
 *   transport): an AOF run is not an older version, it is another experiment;
 * - within that, one series per server product and version, and per series one result (the
 *   primary), so every figure of a column comes from one run, linked from its header;
 * - cell by cell by workload fingerprint, never by label alone.
 */

export const STANDARD_SUITE = 'standard-v1';

/** What a result says of its server beyond the list columns. */
export interface ServerFacts {
  /**
   * The release archive's tag (environment.server.build.tag, e.g. 8.0-m01), where the runner ran a
   * binary built from one: Redis 8.0-m01 reports version 7.9.224, and both are shown.
   */
  tag: string | null;
  /** "AOF fsync everysec", "RDB save …", "none": what tells persistence variants apart. */
  persistence: string | null;
}

/**
 * The facts from a result's `environment.server` block (JSON text). `build` is a newer, optional
 * field: read defensively, ignored when absent or not a short string.
 */
export function serverFacts(block: string | null): ServerFacts {
  let s: Record<string, unknown> = {};
  try {
    const v = block ? JSON.parse(block) : null;
    if (v && typeof v === 'object') s = v as Record<string, unknown>;
  } catch {
    // A block that does not parse says nothing: every fact stays unknown.
  }
  const tag = s.build && typeof s.build === 'object' ? (s.build as Record<string, unknown>).tag : null;
  return {
    tag: typeof tag === 'string' && tag.length > 0 && tag.length <= 64 ? tag : null,
    persistence: persistenceText(s.persistence),
  };
}

function persistenceText(p: unknown): string | null {
  if (!p || typeof p !== 'object') return null;
  const { save, appendonly, appendfsync } = p as Record<string, unknown>;
  const parts: string[] = [];
  if (appendonly === true) parts.push(`AOF fsync ${typeof appendfsync === 'string' ? appendfsync : '?'}`);
  if (typeof save === 'string' && save !== '') parts.push(`RDB save "${save}"`);
  return parts.length ? parts.join(', ') : appendonly === false ? 'none' : null;
}

/** Product order on the page: Redis first, then its forks, then anything else by name. */
const PRODUCTS = ['redis', 'valkey', 'keydb', 'dragonfly'];

/** Versions in numeric order: 6.2.16 < 7.0.15 < 7.10.0; a suffix after equal numbers sorts by text. */
export function compareVersions(a: string | null, b: string | null): number {
  const parts = (v: string | null) => (v ?? '').split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i] ?? -1;
    const q = y[i] ?? -1;
    if (p === q) continue;
    if (typeof p === 'number' && typeof q === 'number') return p - q;
    return String(p).localeCompare(String(q));
  }
  return 0;
}

export function compareServers(
  a: { product: string | null; version: string | null },
  b: { product: string | null; version: string | null },
): number {
  const rank = (p: string | null) => {
    const i = PRODUCTS.indexOf(p ?? '');
    return i < 0 ? PRODUCTS.length : i;
  };
  return (
    rank(a.product) - rank(b.product) ||
    (a.product ?? '').localeCompare(b.product ?? '') ||
    compareVersions(a.version, b.version)
  );
}

/** One server version on one machine and configuration: a column of the side-by-side table. */
export interface Series {
  key: string;
  product: string | null;
  version: string | null;
  /** Every result of this series, newest first; `primary` is the one whose figures are shown. */
  results: SiteResultRow[];
  primary: SiteResultRow;
}

/** A cell's figures in one series' primary result, and its ratio to the reference series. */
export interface Figure {
  resultId: string;
  opsMedian: number;
  ci95Low: number | null;
  ci95High: number | null;
  p50Us: number | null;
  p99Us: number | null;
  unstable: boolean;
  /** opsMedian over the reference's; null for the reference itself and where either is missing. */
  ratio: number | null;
  /** The ratio's bounds from the two intervals (this low over that high, this high over that low). */
  ratioLow: number | null;
  ratioHigh: number | null;
}

export interface CellLine {
  label: string;
  workloadFingerprint: string;
  /** One per series, in the block's series order; null where that series' result lacks the cell. */
  figures: (Figure | null)[];
}

/** Every version that ran in one configuration on one machine, side by side. */
export interface Block {
  config: string;
  series: Series[];
  /** The index of the series the ratios are to. */
  reference: number;
  cells: CellLine[];
}

/** How a server was set up and reached: io-threads, persistence and link. */
export function configOf(r: SiteResultRow, persistence: string | null): string {
  const p =
    r.persistenceOn === 0 || persistence === 'none'
      ? 'no persistence'
      : (persistence ?? (r.persistenceOn === 1 ? 'persistence on' : 'persistence unknown'));
  const io = r.ioThreads === null ? 'io-threads unknown' : `io-threads ${r.ioThreads}`;
  return [io, p, r.linkKind ?? 'link unknown'].join(' · ');
}

/**
 * The blocks of one machine's standard-suite results. `persistenceOf` gives a result's persistence
 * text (asked only for results with persistence on, whose fsync policy the list columns lack);
 * `reference` picks each block's reference series (default: its first, the oldest version).
 */
export function machineBlocks(
  rows: readonly SiteResultRow[],
  persistenceOf: (id: string) => string | null,
  cellsOf: (ids: readonly string[]) => readonly CellFigureRow[],
  reference?: { product: string | null; version: string | null },
): Block[] {
  const configs = new Map<string, SiteResultRow[]>();
  for (const r of rows) {
    if (r.suiteId !== STANDARD_SUITE || r.kind !== 'signed') continue;
    const c = configOf(r, r.persistenceOn === 0 ? null : persistenceOf(r.id));
    configs.set(c, [...(configs.get(c) ?? []), r]);
  }
  const blocks: Block[] = [];
  for (const [config, rs] of configs) {
    const series = seriesOf(rs);
    const ref = reference
      ? series.findIndex((s) => s.product === reference.product && s.version === reference.version)
      : 0;
    if (ref < 0) continue;
    pickPrimaries(series, ref);
    blocks.push({ config, series, reference: ref, cells: cellLines(series, ref, cellsOf) });
  }
  // The configuration with the most versions first: for the dataset, the full group.
  return blocks.sort((a, b) => b.series.length - a.series.length || a.config.localeCompare(b.config));
}

function seriesOf(rows: readonly SiteResultRow[]): Series[] {
  const m = new Map<string, Series>();
  for (const r of rows) {
    const key = `${r.serverProduct ?? ''}\u0000${r.serverVersion ?? ''}`;
    const s = m.get(key);
    if (s) s.results.push(r);
    else m.set(key, { key, product: r.serverProduct, version: r.serverVersion, results: [r], primary: r });
  }
  return [...m.values()].sort(compareServers);
}

/**
 * Each series shows one result: the reference's has the most cells (a full run over a quick one),
 * the newest of those; the others prefer a result from the reference's run group (they ran
 * interleaved with it, so the machine's state weighed on all alike), then the most cells, newest.
 */
function pickPrimaries(series: Series[], ref: number): void {
  const date = (r: SiteResultRow) => r.startedAt ?? r.receivedAt;
  // A group id is one signer's run (packages/db run-group.ts): no other key's result shares it.
  const best = (rs: SiteResultRow[], group: string | null) =>
    [...rs].sort(
      (a, b) =>
        Number(group !== null && b.runGroupId === group) - Number(group !== null && a.runGroupId === group) ||
        b.cellCount - a.cellCount ||
        date(b).localeCompare(date(a)),
    )[0]!;
  const refSeries = series[ref]!;
  refSeries.primary = best(refSeries.results, null);
  for (const s of series) if (s !== refSeries) s.primary = best(s.results, refSeries.primary.runGroupId);
}

function cellLines(
  series: readonly Series[],
  ref: number,
  cellsOf: (ids: readonly string[]) => readonly CellFigureRow[],
): CellLine[] {
  const byResult = new Map<string, CellFigureRow[]>();
  for (const c of cellsOf(series.map((s) => s.primary.id)))
    byResult.set(c.resultId, [...(byResult.get(c.resultId) ?? []), c]);
  // Lines in the suite's order, as the primary with the most cells ran them (a full run has all).
  const fullest = [...series].sort((a, b) => b.primary.cellCount - a.primary.cellCount);
  const order = new Map<string, string>();
  for (const s of fullest)
    for (const c of byResult.get(s.primary.id) ?? [])
      if (c.workloadFingerprint && !order.has(c.workloadFingerprint))
        order.set(c.workloadFingerprint, c.label);
  const find = (s: Series, fp: string) =>
    byResult
      .get(s.primary.id)
      ?.find((c) => c.workloadFingerprint === fp && !c.errors && c.opsMedian !== null);
  return [...order].map(([fp, label]) => {
    const refCell = find(series[ref]!, fp);
    return {
      label,
      workloadFingerprint: fp,
      figures: series.map((s, i) => {
        const c = find(s, fp);
        if (!c) return null;
        const within = i !== ref && refCell !== undefined;
        const div = (a: number | null, b: number | null) => (within && a !== null && b ? a / b : null);
        return {
          resultId: c.resultId,
          opsMedian: c.opsMedian!,
          ci95Low: c.opsCi95Low,
          ci95High: c.opsCi95High,
          p50Us: c.p50Us,
          p99Us: c.p99Us,
          unstable: c.unstable === 1,
          ratio: div(c.opsMedian, refCell?.opsMedian ?? null),
          ratioLow: div(c.opsCi95Low, refCell?.opsCi95High ?? null),
          ratioHigh: div(c.opsCi95High, refCell?.opsCi95Low ?? null),
        };
      }),
    };
  });
}

/**
 * The machines on which a version (its rows) ran the standard suite, in the version page's order:
 * the one with the most versions first; among those, the one where this version ran the most cells
 * (the full profile before the quick one: a machine that also holds io-threads or AOF variants of a
 * quick run is not the better picture of the version), then the one with the most results. Ties
 * keep the order `machines` came in.
 */
export function machinesInOrder<M extends { slug: string; rows: readonly SiteResultRow[] }>(
  versionRows: readonly SiteResultRow[],
  machines: readonly M[],
  slugOf: (r: SiteResultRow) => string,
): { machine: M; versions: number }[] {
  const cells = new Map<string, number>();
  for (const r of versionRows) {
    if (r.suiteId !== STANDARD_SUITE || r.kind !== 'signed') continue;
    const slug = slugOf(r);
    cells.set(slug, Math.max(cells.get(slug) ?? 0, r.cellCount));
  }
  return machines
    .filter((m) => cells.has(m.slug))
    .map((m) => ({ machine: m, versions: distinctVersions(m.rows), cells: cells.get(m.slug) ?? 0 }))
    .sort(
      (a, b) => b.versions - a.versions || b.cells - a.cells || b.machine.rows.length - a.machine.rows.length,
    )
    .map(({ machine, versions }) => ({ machine, versions }));
}

function distinctVersions(rows: readonly SiteResultRow[]): number {
  return new Set(
    rows
      .filter((r) => r.suiteId === STANDARD_SUITE && r.kind === 'signed')
      .map((r) => `${r.serverProduct}\u0000${r.serverVersion}`),
  ).size;
}

/** A machine on a version page: the blocks drawn in full, and those only named (with their results linked). */
export interface MachineBlocks<M> {
  machine: M;
  drawn: Block[];
  listed: Block[];
}

/**
 * Which blocks a version page draws. Each block weighs about 80 KB (a chart and a table of every
 * cell), and a machine can hold a block per configuration (io-threads, persistence, link): at 10,000
 * synthetic results one version page drew 115 of them, 9.4 MB. So every machine gets its first block
 * (the configuration with the most versions) while the page has room, then its next ones, up to
 * `perMachine` each and `perPage` in all; the rest are named, not drawn. The project's own data (at
 * most four configurations on a machine) is drawn whole.
 */
export function budgetBlocks<M>(
  machines: readonly { machine: M; blocks: readonly Block[] }[],
  perMachine: number,
  perPage: number,
): MachineBlocks<M>[] {
  const counts = machines.map(() => 0);
  let left = perPage;
  for (let round = 0; round < perMachine && left > 0; round++)
    machines.forEach((m, i) => {
      if (left > 0 && counts[i] === round && m.blocks.length > round) {
        counts[i] = round + 1;
        left--;
      }
    });
  return machines.map((m, i) => ({
    machine: m.machine,
    drawn: m.blocks.slice(0, counts[i]),
    listed: m.blocks.slice(counts[i]),
  }));
}
