import {
  type BetweenRunNoise,
  comparePair,
  multiplicityOf,
  type PairComparison,
  type PairedEvidence,
  ratioText,
  type VerdictCell,
} from '@redis-benchdb/result/verdict';
import { bytes, count } from '../model/format.js';
import type { WorkloadParams } from '../model/workload-params.js';

/** The explorer's paths (routes.ts lists them with the rest; the browser script reads them from here). */
export const EXPLORE_PATHS = {
  page: '/explore/',
  /** A standard-suite cell's static view. */
  view: (slug: string) => `/explore/${slug}/`,
  catalog: '/explore/workloads.json',
  data: (id: string) => `/explore/w/${id}.json`,
} as const;

/**
 * The workload explorer's model, as pure functions over small JSON shapes: the build renders the
 * standard cells' pages with it, and the explorer's script runs the same code in the browser. Keep
 * this file free of Node and of heavy imports: it is shipped to the browser.
 *
 * A workload is one workload fingerprint: every parameter that changes what a cell measures. The
 * explorer names it by the five a reader picks (test, pipeline depth, value size, connections, key
 * space); the rest (pipeline mode, key pattern, open-loop rate, and `extra`) tell apart the rare
 * workloads those five leave equal.
 */
/** One workload that has results, as the explorer's picker lists it. */
export interface WorkloadEntry extends WorkloadParams {
  /** The first 16 hex digits of the fingerprint: names its data file and tells variants apart in a URL. */
  id: string;
  /** A label it ran under ("GET P16"). */
  label: string;
  results: number;
  /** The static page of a standard-suite cell, or null: the explorer's page draws it in the browser. */
  page: string | null;
}

/**
 * One bar: the admitted results of one server version on one machine kind in one configuration
 * (packages/result identity.ts): never pooled across machine kinds or configurations.
 */
export interface Bar {
  /** Stable across workloads (a hash of server, machine kind and configuration): the baseline in a URL. */
  key: string;
  server: string;
  /** The machine kind's label ("AMD EPYC · L1d 32 KiB · L2 512 KiB · 2 vCPU · KVM + docker"). */
  machine: string;
  /** Machine kind and configuration keys: a ratio is only ever between bars that share both. */
  machineKey: string;
  configKey: string;
  /** The configuration's label, and whether it is the default one. */
  config: string;
  configDefault: boolean;
  /**
   * What lo-hi is (packages/result spread.ts): "range of 3 trials" or "95% interval of the median of
   * 10 trials" for one result, "range of 3 results" or "95% interval of the median of 6 results" for several.
   */
  spread: string;
  serverPath: string;
  machinePath: string;
  /** The results list filtered to this server version and machine. */
  resultsPath: string;
  /** Median ops/s: the result's own with one result, else the median of the results' medians. */
  ops: number;
  /**
   * The spread of `ops` (pair-evidence.ts sideOf): one result's trials', several results' medians'; a
   * 95% interval of the median from 6 values on (order statistics), else their range, which `spread` says.
   */
  lo: number | null;
  hi: number | null;
  /** Latency in µs: the result's, else the median over the results of each one's percentile. */
  p50: number | null;
  p99: number | null;
  results: number;
  /** Distinct signers behind the bar: several keys of one signer (the project's data keys) count once. */
  signers: number;
  /** Cells behind the bar marked unstable (CV over 10%) or client-bound. */
  unstable: number;
  clientBound: number;
  /** Whether lo-hi is a 95% interval of the median (6 values or more), not a range of 2 to 5. */
  interval: boolean;
  /** The no-verdict warnings any of its cells carries (UNSTABLE, CLIENT_BOUND...): no verdict on it. */
  warnings?: string[];
  /**
   * By another bar's key, on the same machine kind and configuration: the paired evidence of the
   * interleaved run group that holds both (this bar the baseline), which decides their comparison.
   */
  paired?: Record<string, PairedEvidence>;
  /** The between-run noise of the bar's results: the spread of their medians, or the stated default with fewer than three. */
  noise: BetweenRunNoise;
  /** The result whose median is nearest the bar's: where a reader checks its figures. */
  sample: string;
}

export interface WorkloadData {
  workload: WorkloadEntry;
  /** By machine kind, the default configuration first, then product and version: never by a figure. */
  bars: Bar[];
  /**
   * No cell was admitted and the bars are the client-bound ones (explore-data.ts): each a floor under
   * the server's throughput, with no verdict. Absent or false: the bars are admitted cells.
   */
  clientBound?: boolean;
  /** "3 results left out: 2 busy host, 1 io-threads over CPUs", with each result and its reasons. */
  leftOut: { text: string; results: { id: string; reasons: string[] }[] } | null;
  /** Copy-paste snippets of the workload's chart (see embed.ts) and its files' site paths, made at build. */
  embed: { iframe: string; markdown: string; pagePath: string; svgPath: string; pngPath: string | null };
  /** "live, built on 2026-11-24". */
  asOf: string;
}

/** What the URL holds. Every field is optional: a partial state picks the workload with the most results. */
export interface ExploreState {
  test?: string;
  pipeline?: number;
  value?: string;
  conns?: number;
  keys?: number;
  /** A workload id, only when the five parameters leave more than one. */
  variant?: string;
  /** The bar the others are relative to; the fastest when absent. */
  vs?: string;
}

/** The five parameters a reader picks, in the picker's order, with their labels. */
export const PICKED = {
  test: 'Test',
  pipeline: 'Pipeline depth',
  value: 'Value size',
  conns: 'Connections',
  keys: 'Key space',
} as const;
export type Picked = keyof typeof PICKED;
export const PICKED_KEYS = Object.keys(PICKED) as Picked[];

/** A parameter's value in the URL and the picker: "256", "16-4096" for a range of sizes. */
export function pickedValue(w: WorkloadParams, p: Picked): string {
  if (p === 'value') return w.valueMin === w.valueMax ? String(w.valueMin) : `${w.valueMin}-${w.valueMax}`;
  return String(w[p]);
}

/** How a value reads in the picker. */
export function pickedText(p: Picked, v: string): string {
  if (p === 'value')
    return v
      .split('-')
      .map((n) => bytes(Number(n)))
      .join('–');
  if (p === 'keys') return `${count(Number(v))} keys`;
  if (p === 'pipeline') return v === '1' ? 'none (1)' : v;
  return v;
}

const int = (v: string | null) => (v !== null && /^\d+$/.test(v) ? Number(v) : undefined);
const str = (v: string | null, re: RegExp) => (v !== null && re.test(v) ? v : undefined);

export function parseState(search: string): ExploreState {
  const q = new URLSearchParams(search);
  const s: ExploreState = {
    test: str(q.get('test'), /^[A-Za-z0-9_:. -]{1,60}$/)?.toUpperCase(),
    pipeline: int(q.get('pipeline')),
    value: str(q.get('value'), /^\d+(-\d+)?$/),
    conns: int(q.get('conns')),
    keys: int(q.get('keys')),
    variant: str(q.get('variant'), /^[0-9a-f]{16}$/),
    vs: str(q.get('vs'), /^[0-9a-f]{10}$/),
  };
  for (const k of Object.keys(s) as (keyof ExploreState)[]) if (s[k] === undefined) delete s[k];
  return s;
}

/** The query string of a state, its parameters in a fixed order ("" for none). */
export function stateToSearch(s: ExploreState): string {
  const q = new URLSearchParams();
  for (const k of [...PICKED_KEYS, 'variant', 'vs'] as const) if (s[k] !== undefined) q.set(k, String(s[k]));
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** The full state of a workload: its five parameters, its variant when they are not enough. */
export function stateOf(catalog: readonly WorkloadEntry[], w: WorkloadEntry, vs?: string): ExploreState {
  const s: ExploreState = {
    test: w.test,
    pipeline: w.pipeline,
    value: pickedValue(w, 'value'),
    conns: w.conns,
    keys: w.keys,
  };
  if (catalog.filter((o) => samePicked(o, w)).length > 1) s.variant = w.id;
  if (vs) s.vs = vs;
  return s;
}

const samePicked = (a: WorkloadParams, b: WorkloadParams) =>
  PICKED_KEYS.every((p) => pickedValue(a, p) === pickedValue(b, p));

/** The workload a URL names: every parameter it gives must match; of several, its variant or the most results. */
export function findWorkload(catalog: readonly WorkloadEntry[], s: ExploreState): WorkloadEntry | null {
  const hits = catalog.filter((w) =>
    PICKED_KEYS.every((p) => s[p] === undefined || pickedValue(w, p) === String(s[p])),
  );
  return hits.find((w) => w.id === s.variant) ?? mostResults(hits);
}

/**
 * Of several, the one with the most results; of equals, the one a reader most likely came for: a
 * standard-suite cell, GET before SET before the rest, the shallower pipeline, then by label. Without
 * this the first of equals won, and the explorer opened on RPOP for the real dataset.
 */
const mostResults = (ws: readonly WorkloadEntry[]) =>
  ws.reduce<WorkloadEntry | null>((best, w) => (!best || preferred(w, best) < 0 ? w : best), null);

const TEST_ORDER = ['GET', 'SET'];
const testRank = (w: WorkloadEntry) => {
  const i = TEST_ORDER.indexOf(w.test.toUpperCase());
  return i === -1 ? TEST_ORDER.length : i;
};

/** Negative when a comes first. */
function preferred(a: WorkloadEntry, b: WorkloadEntry): number {
  return (
    b.results - a.results ||
    Number(b.page !== null) - Number(a.page !== null) ||
    testRank(a) - testRank(b) ||
    a.pipeline - b.pipeline ||
    a.label.localeCompare(b.label)
  );
}

/**
 * After the reader changed one parameter: the workload with that value which differs least from the
 * current one in the others (then the one with the most results). Null when no workload has it.
 */
export function nearestWith(
  catalog: readonly WorkloadEntry[],
  current: WorkloadEntry,
  p: Picked,
  value: string,
): WorkloadEntry | null {
  const hits = catalog.filter((w) => pickedValue(w, p) === value);
  let best: WorkloadEntry | null = null;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const w of hits) {
    // The test weighs most: "GET at pipeline 16" should stay GET when the pipeline changes.
    const score = differingParams(current, w).reduce((n, d) => n + (d.param === 'test' ? 10 : 1), 0);
    if (score < bestScore || (score === bestScore && best && w.results > best.results)) {
      best = w;
      bestScore = score;
    }
  }
  return best;
}

/** The values of a parameter among workloads of the given test (every test's, for the test itself). */
export function pickedOptions(catalog: readonly WorkloadEntry[], p: Picked, test: string): string[] {
  const ws = p === 'test' ? catalog : catalog.filter((w) => w.test === test);
  const vs = [...new Set(ws.map((w) => pickedValue(w, p)))];
  return p === 'test' ? vs.sort() : vs.sort((a, b) => parseFloat(a) - parseFloat(b) || a.localeCompare(b));
}

const PARAM_LABELS: Record<Exclude<keyof WorkloadParams, 'valueMax'>, string> = {
  test: 'test',
  pipeline: 'pipeline depth',
  mode: 'pipeline mode',
  valueMin: 'value size',
  keys: 'key space',
  pattern: 'key pattern',
  conns: 'connections',
  rate: 'open-loop rate',
  extra: 'other settings',
};

/** One parameter two workloads disagree on, as words. */
export interface ParamDifference {
  param: keyof typeof PARAM_LABELS;
  label: string;
  a: string;
  b: string;
}

/** Every parameter two workloads disagree on; empty for the same workload. */
export function differingParams(a: WorkloadParams, b: WorkloadParams): ParamDifference[] {
  const text = (w: WorkloadParams, k: keyof typeof PARAM_LABELS): string => {
    if (k === 'valueMin') return pickedText('value', pickedValue(w, 'value'));
    if (k === 'keys') return count(w.keys);
    if (k === 'rate') return w.rate === null ? 'closed loop' : `${count(w.rate)} ops/s`;
    if (k === 'extra') return w.extra.join(', ') || 'defaults';
    return String(w[k]);
  };
  return (Object.keys(PARAM_LABELS) as (keyof typeof PARAM_LABELS)[])
    .map((k) => ({ param: k, label: PARAM_LABELS[k], a: text(a, k), b: text(b, k) }))
    .filter((d) => d.a !== d.b);
}

/** "GET · pipeline 16 · 256 B values · 1M keys · 50 connections", with what else is not the default. */
export function describeWorkload(w: WorkloadParams): string {
  const parts = [
    w.test,
    w.pipeline === 1 ? 'no pipelining' : `pipeline ${w.pipeline}${w.mode === 'batch' ? '' : ` (${w.mode})`}`,
    `${pickedText('value', pickedValue(w, 'value'))} values`,
    `${count(w.keys)} keys${w.pattern === 'uniform' ? '' : ` (${w.pattern})`}`,
    `${w.conns} connection${w.conns === 1 ? '' : 's'}`,
  ];
  if (w.rate !== null) parts.push(`open loop at ${count(w.rate)} ops/s`);
  return [...parts, ...w.extra].join(' · ');
}

/** The bar the others are measured against: the chosen baseline, else the first (the oldest version on the first machine kind). */
export function reference(
  bars: readonly Bar[],
  vs: string | undefined,
): { bar: Bar; chosen: boolean } | null {
  const chosen = vs ? bars.find((b) => b.key === vs) : undefined;
  if (chosen) return { bar: chosen, chosen: true };
  return bars[0] ? { bar: bars[0], chosen: false } : null;
}

/**
 * A bar against the reference, by packages/result's one comparison (comparePair): the paired ratio
 * and its 95% interval where an interleaved run group holds both (Bar.paired), else the ratio of
 * medians, "faster" or "slower" only when the two spreads are apart and the difference is beyond the
 * between-run noise; no verdict on a bar with unstable or client-bound cells. The same figure the
 * home, version and group pages give for the pair. Null on the reference itself and across machine
 * kinds or configurations (the ratio column says why).
 */
export function comparison(bar: Bar, ref: Bar): PairComparison | null {
  if (bar.key === ref.key) return null;
  if (bar.machineKey !== ref.machineKey || bar.configKey !== ref.configKey) return null;
  return comparePair(verdictCell(ref), verdictCell(bar), ref.paired?.[bar.key] ?? null);
}

/** The bar's ratio to the reference (comparison); 1 for the reference itself. */
export function ratio(bar: Bar, ref: Bar): number | null {
  if (bar.key === ref.key) return ref.ops > 0 ? 1 : null;
  return comparison(bar, ref)?.ratio ?? null;
}

/** "0.953× (0.920–0.987) paired, 10 rounds", "1.05×", "—": the ratio column. */
export function ratioCell(bar: Bar, ref: Bar): string {
  if (bar.key === ref.key) return '1.00×';
  const c = comparison(bar, ref);
  if (!c) return '—';
  if (c.basis !== 'paired') return ratioText(c.ratio, null, null);
  return `${ratioText(c.ratio, c.low, c.high)} paired, ${c.rounds} round${c.rounds === 1 ? '' : 's'}`;
}

/** The comparison's verdict text ("slower: paired interval 0.920–0.987 excludes 1 (10 rounds)"), or null. */
export function verdictFor(bar: Bar, ref: Bar): string | null {
  return comparison(bar, ref)?.verdict.text ?? null;
}

/** "N comparisons on this page; …" for the bars against `ref`, or null for fewer than two. */
export function comparisonsNote(bars: readonly Bar[], ref: Bar): string | null {
  return multiplicityOf(
    bars.flatMap((b) => {
      const c = comparison(b, ref);
      return c ? [{ groupId: c.groupId }] : [];
    }),
  );
}

function verdictCell(b: Bar): VerdictCell {
  // An older explorer JSON has no `warnings`: its unstable and client-bound counts say them.
  const warnings = b.warnings ?? [
    ...(b.unstable > 0 ? ['UNSTABLE'] : []),
    ...(b.clientBound > 0 ? ['CLIENT_BOUND'] : []),
  ];
  return { median: b.ops, low: b.lo, high: b.hi, spread: b.spread, warnings, noise: b.noise };
}

/** The scale of a set of bars: the highest end of any bar or interval, so every interval fits. */
/** What a page says above bars that are all client-bound (WorkloadData.clientBound). */
export const CLIENT_BOUND_NOTE =
  'No result of this workload is admitted: in every one the client, not the server, was the limit (CLIENT_BOUND). Their bars are shown for what they are, each a floor under the server’s throughput, with no verdict.';

export function barScale(bars: readonly Bar[]): number {
  return bars.reduce((m, b) => Math.max(m, b.ops, b.hi ?? 0), 0);
}

/** A bar's length and its interval's ends, in percent of the scale (barScale). */
export function barGeometry(
  bar: Bar,
  scale: number,
): { width: number; lo: number | null; hi: number | null } {
  const pct = (v: number) => (scale > 0 ? Math.min(100, Math.max(0, (100 * v) / scale)) : 0);
  return {
    width: pct(bar.ops),
    lo: bar.lo === null ? null : pct(bar.lo),
    hi: bar.hi === null ? null : pct(bar.hi),
  };
}
