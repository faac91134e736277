import { createHash } from 'node:crypto';
import {
  iterateWorkloadCells,
  type SiteResultRow,
  type WorkloadCell,
  workloadDefinition,
} from '@redis-benchdb/db';
import { median, type PairedEvidence } from '@redis-benchdb/result';
import { stageFile } from '../build/stage.js';
import { cellsChart } from '../charts/cells.js';
import { groupEvidence, type SideCell, sideOf } from '../compare/pair-evidence.js';
import { cellLeftOut, LeftOut } from '../data/admit.js';
import { allResults, database, HEADLINE_SUITE, machineSlugOf, versionSlugOf } from '../data/data.js';
import { allStandings, heldOf } from '../data/standing.js';
import { type EmbedTarget, embedSnippets } from '../embeds/embed.js';
import { liveEmbed } from '../home/live.js';
import { filtersToSearch } from '../lists/filters.js';
import { workloadParams } from '../model/workload-params.js';
import { paths } from '../routes/routes.js';
import { shortText } from '../text/text.js';
import { compareServers } from '../versions/versions.js';
import {
  type Bar,
  describeWorkload,
  EXPLORE_PATHS,
  stateOf,
  stateToSearch,
  type WorkloadData,
  type WorkloadEntry,
} from './explore.js';

/**
 * The explorer at build time: one pass over every comparable cell (db's iterateWorkloadCells, an
 * index walk in fingerprint order, so one workload's cells are in memory at a time), bars per server
 * version and machine, and the files the browser reads: the catalog, one JSON per workload and one
 * chart per workload (SVG, PNG, iframe page, through live.ts like every chart that follows new results).
 */
export interface Explorer {
  catalog: WorkloadEntry[];
  data: Map<string, WorkloadData>;
  /** Each workload's chart, by workload id: a static page shows it with its embed snippets. */
  targets: Map<string, EmbedTarget>;
  /** The standard suite's cells with results: each has a static page, by slug. */
  standard: Map<string, string>;
}

/** Bars drawn in a workload's chart (the table lists every bar). */
export const CHART_BARS = 20;

let built: Explorer | null = null;

/** Built once per build, whichever page asks first; the files are written then. */
export function explorer(): Explorer {
  built ??= build();
  return built;
}

function build(): Explorer {
  const rows = new Map(allResults().map((r) => [r.id, r]));
  // Each workload's bars are made as soon as its last cell is read, and its cells let go. Its
  // definition is read after the walk: better-sqlite3 runs no other statement while one iterates.
  const walked: {
    fp: string;
    standardLabel: string | null;
    results: number;
    bars: Bar[];
    clientBound: boolean;
    leftOut: LeftOut;
  }[] = [];
  let cells: WorkloadCell[] = [];
  const flush = () => {
    const fp = cells[0]?.workloadFingerprint;
    if (fp === undefined) return;
    const standardLabel = mostCommon(
      cells.filter((c) => rows.get(c.resultId)!.suiteId === HEADLINE_SUITE).map((c) => c.label),
    );
    const leftOut = new LeftOut();
    walked.push({
      fp,
      standardLabel,
      results: new Set(cells.map((c) => c.resultId)).size,
      ...bars(cells, rows, leftOut),
      leftOut,
    });
    cells = [];
  };
  allStandings(); // read before the walk: no other statement runs on the connection during it
  for (const c of iterateWorkloadCells(database())) {
    if (!rows.has(c.resultId)) continue;
    if (cells[0] && cells[0].workloadFingerprint !== c.workloadFingerprint) flush();
    cells.push(c);
  }
  flush();
  const entries = walked.flatMap(({ fp, standardLabel, results, bars, clientBound, leftOut }) => {
    const def = workloadDefinition(database(), fp);
    if (!def) return [];
    const entry: WorkloadEntry = {
      ...workloadParams(def.workload),
      id: fp.replace(/^sha256:/, '').slice(0, 16),
      label: standardLabel ?? def.label,
      results,
      page: null,
    };
    return [{ entry, standardLabel, bars, clientBound, leftOut }];
  });
  // A standard cell's page is named by its label; should two workloads share one (a suite changed), the one with more results keeps it.
  const standard = new Map<string, string>();
  for (const w of [...entries].sort((a, b) => b.entry.results - a.entry.results)) {
    if (!w.standardLabel) continue;
    // Readable names ("get-p16"): the label is the suite's, and a clash is settled below, so no hash is needed.
    let s =
      w.standardLabel
        .toLowerCase()
        .replace(/[^a-z0-9.]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 60) || 'cell';
    if (standard.has(s)) s = `${s}-${w.entry.id.slice(0, 6)}`;
    standard.set(s, w.entry.id);
    w.entry.page = EXPLORE_PATHS.view(s);
  }
  const catalog = entries.map((w) => w.entry);
  const data = new Map<string, WorkloadData>();
  const targets = new Map<string, EmbedTarget>();
  for (const w of entries) {
    const target = workloadChart(catalog, w.entry, w.bars, w.clientBound);
    const d = workloadData(w.entry, w.bars, w.clientBound, target, w.leftOut);
    data.set(w.entry.id, d);
    targets.set(w.entry.id, target);
    stageFile(EXPLORE_PATHS.data(w.entry.id), JSON.stringify(d));
  }
  stageFile(EXPLORE_PATHS.catalog, JSON.stringify(catalog));
  return { catalog, data, targets, standard };
}

/** The address of a workload's view: its static page, else the explorer's page with its state. */
export function viewPath(catalog: readonly WorkloadEntry[], w: WorkloadEntry): string {
  return w.page ?? EXPLORE_PATHS.page + stateToSearch(stateOf(catalog, w));
}

/** A workload's chart, staged with its embed files: the first bars in the table's order, their intervals (not ranges). */
function workloadChart(
  catalog: readonly WorkloadEntry[],
  w: WorkloadEntry,
  bs: readonly Bar[],
  clientBound: boolean,
): EmbedTarget {
  const shown = bs.slice(0, CHART_BARS);
  const what = describeWorkload(w);
  const chart = cellsChart(
    shown.map((b) => ({
      cell: `${b.server} · ${b.machine}${b.configDefault ? '' : ` · ${b.config}`}`,
      series: 'median ops/s',
      opsPerSec: b.ops,
      // The chart's rule is a 95% interval: a range of 2 to 5 results is not one, so it is not drawn as one.
      ci95Low: b.spread.startsWith('range') ? null : b.lo,
      ci95High: b.spread.startsWith('range') ? null : b.hi,
    })),
    {
      id: `explore-${w.id}`,
      title: `${w.label}: ops/s by server version, machine kind and configuration${clientBound ? ' (client-bound: a floor)' : ''}`,
      source: `${what}; ${bs.length > shown.length ? `the first ${shown.length} of ${bs.length}` : `all ${bs.length}`} server versions and machines, ${w.results} results${clientBound ? '; every cell client-bound, so each bar is the client’s limit, a floor under the server’s' : ''}`,
    },
  );
  return liveEmbed(chart, viewPath(catalog, w), `${w.label} (${what}), ${w.results} results`);
}

function workloadData(
  w: WorkloadEntry,
  bs: Bar[],
  clientBound: boolean,
  target: EmbedTarget,
  leftOut: LeftOut,
): WorkloadData {
  const { iframe, markdown } = embedSnippets(target);
  const text = leftOut.text;
  return {
    workload: w,
    bars: bs,
    clientBound,
    leftOut: text ? { text, results: leftOut.list() } : null,
    embed: { iframe, markdown, pagePath: target.pagePath, svgPath: target.svgPath, pngPath: target.pngPath },
    asOf: target.asOf,
  };
}

/**
 * One bar per server version, machine kind and configuration, of admitted cells only (admit.ts), or,
 * where none is admitted, of the cells left out for being client-bound alone: ordered by machine
 * kind, the default configuration first, then product and version, never by a figure.
 */
function bars(
  cells: readonly WorkloadCell[],
  rows: ReadonlyMap<string, SiteResultRow>,
  leftOut: LeftOut,
): { bars: Bar[]; clientBound: boolean } {
  const admitted: WorkloadCell[] = [];
  const boundOnly: WorkloadCell[] = [];
  for (const c of cells) {
    const r = rows.get(c.resultId)!;
    const why = cellLeftOut({
      ...c,
      warningCodes: r.warningCodes,
      incomplete: c.incomplete || r.incomplete,
      held: heldOf(c.resultId),
    });
    leftOut.add(c.resultId, why);
    if (why.length === 0) admitted.push(c);
    else if (why.length === 1 && why[0] === 'CLIENT_BOUND') boundOnly.push(c);
  }
  // A workload every result of which the client held back (the compare profile's pipeline-1 cells on a
  // 2-vCPU VM) would show no bar at all: its client-bound cells are drawn instead, each bar then a floor
  // under the server's throughput, with no verdict (verdictFor) and the page saying so (issue 28).
  if (admitted.length === 0 && boundOnly.length > 0)
    return { bars: barsOf(boundOnly, rows), clientBound: true };
  return { bars: barsOf(admitted, rows), clientBound: false };
}

/** One bar per server version, machine kind and configuration of these cells, in the table's order. */
function barsOf(cells: readonly WorkloadCell[], rows: ReadonlyMap<string, SiteResultRow>): Bar[] {
  const groups = new Map<string, { row: SiteResultRow; cells: WorkloadCell[] }>();
  for (const c of cells) {
    const r = rows.get(c.resultId)!;
    const key = JSON.stringify([r.serverProduct, r.serverVersion, r.machineKey, r.configKey]);
    const g = groups.get(key);
    if (g) g.cells.push(c);
    else groups.set(key, { row: r, cells: [c] });
  }
  const made = [...groups.entries()].map(([key, g]) => {
    const side = g.cells.map((c) => sideCell(c, rows.get(c.resultId)!));
    return { side, bar: bar(key, g.row, g.cells, side, rows) };
  });
  pairBars(made);
  return made
    .map((m) => m.bar)
    .sort(
      (a, b) =>
        a.machine.localeCompare(b.machine) ||
        a.machineKey.localeCompare(b.machineKey) ||
        Number(b.configDefault) - Number(a.configDefault) ||
        a.config.localeCompare(b.config) ||
        compareServers(a, b),
    )
    .map(({ product: _p, version: _v, ...b }) => b);
}

/** A cell as the one comparison reads a side (pair-evidence.ts). */
function sideCell(c: WorkloadCell, r: SiteResultRow): SideCell {
  return {
    resultId: c.resultId,
    workloadFingerprint: c.workloadFingerprint,
    runGroupId: r.runGroupId,
    at: r.startedAt ?? r.receivedAt,
    flags: c.noVerdict ? c.noVerdict.split(',') : [],
    opsMedian: c.opsMedian,
  };
}

/**
 * For every two bars of one machine kind and configuration that an interleaved run group holds both
 * of: the group's paired evidence, each way, so the explorer's verdict for the pair is the group's
 * (and the version pages'), whichever bar the reader takes as the baseline.
 */
function pairBars(made: readonly { side: SideCell[]; bar: Bar }[]): void {
  for (const a of made)
    for (const b of made) {
      if (a === b || a.bar.machineKey !== b.bar.machineKey || a.bar.configKey !== b.bar.configKey) continue;
      const p: PairedEvidence | null = groupEvidence(a.side, b.side);
      if (p) a.bar.paired = { ...a.bar.paired, [b.bar.key]: p };
    }
}

function bar(
  key: string,
  r: SiteResultRow,
  cells: readonly WorkloadCell[],
  side: readonly SideCell[],
  rows: ReadonlyMap<string, SiteResultRow>,
): Bar & { product: string | null; version: string | null } {
  // The median and its spread, by the rule every comparison reads a side by (pair-evidence.ts sideOf):
  // one result, its trials'; several, their medians'; an interval of the median only from 6 values on.
  const { cell: v, kind } = sideOf(side);
  const ops = v.median;
  const sample = cells.reduce((m, c) => (Math.abs(c.opsMedian - ops) < Math.abs(m.opsMedian - ops) ? c : m));
  return {
    key: createHash('sha256').update(key).digest('hex').slice(0, 10),
    server: `${r.serverProduct ?? 'unknown server'} ${shortText(r.serverVersion ?? '(version unknown)', 60).text}`,
    machine: shortText(
      r.machineLabel ?? `${r.cpuModel ?? 'unknown CPU'} (${r.virtualizationKind ?? '?'})`,
      120,
    ).text,
    machineKey: r.machineKey ?? '?',
    configKey: r.configKey ?? '?',
    config: shortText(r.configLabel ?? 'configuration unknown', 120).text,
    configDefault: r.configDefault === 1,
    spread: v.spread,
    product: r.serverProduct,
    version: r.serverVersion,
    serverPath: paths.version(versionSlugOf(r)),
    machinePath: paths.machine(machineSlugOf(r)),
    resultsPath:
      paths.results() +
      filtersToSearch({
        values: {
          product: r.serverProduct ?? undefined,
          version: r.serverVersion ?? undefined,
          // The bar's machine kind, not its CPU model name (which other kinds may share).
          machine: machineSlugOf(r),
        },
        clean: false,
      }),
    ops,
    lo: v.low,
    hi: v.high,
    p50: medianOf(cells.map((c) => c.p50Us)),
    p99: medianOf(cells.map((c) => c.p99Us)),
    results: new Set(cells.map((c) => c.resultId)).size,
    signers: new Set(cells.map((c) => rows.get(c.resultId)?.signer).filter(Boolean)).size,
    unstable: cells.filter((c) => c.unstable === 1).length,
    clientBound: cells.filter((c) => c.clientBound === 1).length,
    interval: kind === 'median-ci',
    warnings: [...v.warnings],
    noise: v.noise,
    sample: sample.resultId,
  };
}

/** Latency of several results: the median of each one's own percentile (never an average of percentiles). */
function medianOf(xs: readonly (number | null)[]): number | null {
  const known = xs.filter((x): x is number => x !== null);
  return known.length ? median(known) : null;
}

function mostCommon(xs: readonly string[]): string | null {
  const n = new Map<string, number>();
  for (const x of xs) n.set(x, (n.get(x) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
}
