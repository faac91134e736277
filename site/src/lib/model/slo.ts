import type { SloSearch } from '@redis-benchdb/result';

/**
 * A throughput-at-latency-objective cell (run --slo, the suite's SLO cells) as pages show it: each
 * trial is one search, whose answer is the highest offered rate that met every objective, known to
 * lie between the last passing and the first failing rate tried (its bracket).
 */
export interface SloView {
  /** "p99 ≤ 1 ms", as a reader writes it. */
  objective: string;
  /** The strictest objective: the one the chart draws as a rule. */
  percentile: number;
  maxUs: number;
  searches: SloSearchView[];
  /** The median answer of the searches that found one; null when none did. */
  answerOpsPerSec: number | null;
}

export interface SloSearchView {
  answerOpsPerSec: number | null;
  passOpsPerSec: number | null;
  failOpsPerSec: number | null;
  outcome: string;
  reason: string | null;
  steps: SloStepView[];
}

/** One step: the rate offered, the latencies it gave (from the intended send), and whether it passed. */
export interface SloStepView {
  offeredOpsPerSec: number;
  achievedOpsPerSec: number;
  p50Us: number;
  /** The strictest objective's percentile, read from the step's histogram by the runner. */
  objectiveUs: number;
  pass: boolean;
}

/** The view of a cell's searches; null for a cell that is not one. */
export function sloView(searches: readonly (SloSearch | undefined)[]): SloView | null {
  const found = searches.filter((s): s is SloSearch => s !== undefined);
  const first = found[0];
  if (!first || first.objectives.length === 0) return null;
  const strictest = first.objectives[first.objectives.length - 1]!;
  const at = first.objectives.length - 1;
  const views = found.map((s) => ({
    answerOpsPerSec: s.answerOpsPerSec,
    passOpsPerSec: s.bracket.passOpsPerSec,
    failOpsPerSec: s.bracket.failOpsPerSec,
    outcome: s.outcome,
    reason: s.reason,
    steps: s.steps.map((st) => ({
      offeredOpsPerSec: st.offeredOpsPerSec,
      achievedOpsPerSec: st.achievedOpsPerSec,
      p50Us: st.responseTimeUs.p50Us,
      objectiveUs: st.percentilesUs[at] ?? st.responseTimeUs.p99Us,
      pass: st.pass,
    })),
  }));
  const answers = views.flatMap((v) => (v.answerOpsPerSec === null ? [] : [v.answerOpsPerSec]));
  return {
    objective: objectiveText(first.objectives),
    percentile: strictest.percentile,
    maxUs: strictest.maxUs,
    searches: views,
    answerOpsPerSec: answers.length ? medianOf(answers) : null,
  };
}

/** "p99 ≤ 1 ms, p99.9 ≤ 500 µs". */
export function objectiveText(objectives: readonly { percentile: number; maxUs: number }[]): string {
  return objectives.map((o) => `p${o.percentile} ≤ ${latencyText(o.maxUs)}`).join(', ');
}

/** The canonical form a workload records ("p99<=1000us,p99.9<=5000us") as "p99 ≤ 1 ms, p99.9 ≤ 5 ms". */
export function canonicalObjectiveText(canonical: string): string {
  const objectives = canonical.split(',').flatMap((part) => {
    const m = /^p([\d.]+)<=([\d.]+)us$/.exec(part);
    return m ? [{ percentile: Number(m[1]), maxUs: Number(m[2]) }] : [];
  });
  return objectives.length ? objectiveText(objectives) : canonical;
}

function latencyText(us: number): string {
  return us >= 1000 ? `${+(us / 1000).toPrecision(6)} ms` : `${us} µs`;
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');

/**
 * The figure as a page states it: "max 84,000 ops/s at p99 ≤ 1 ms (bracket 84,000–88,000)", the
 * median of several searches with each one's bracket, or why there is no answer.
 */
export function sloFigureText(v: SloView): string {
  const bracketed = v.searches.filter((s) => s.answerOpsPerSec !== null);
  if (v.answerOpsPerSec === null) {
    const s = v.searches[0]!;
    return `no answer for max ops/s at ${v.objective}: ${s.outcome}${s.reason ? ` (${s.reason})` : ''}`;
  }
  const brackets = bracketed.map((s) => `${n(s.passOpsPerSec!)}–${n(s.failOpsPerSec!)}`).join(', ');
  const of = v.searches.length > 1 ? `, median of ${bracketed.length} of ${v.searches.length} searches` : '';
  return `max ${n(v.answerOpsPerSec)} ops/s at ${v.objective} (bracket ${brackets}${of})`;
}

/**
 * The label of a search cell as the runner names it ("GET p99<=1ms"), split into its test part and
 * its objectives ("p99 ≤ 1 ms"); null for any other label. For tables keyed by label alone.
 */
export function sloLabel(label: string): { cell: string; objective: string } | null {
  const m = /^(.*\S)\s+((?:p[\d.]+<=[\d.]+(?:us|ms),?)+)$/.exec(label);
  if (!m) return null;
  const objectives = m[2]!.split(',').map((part) => {
    const o = /^p([\d.]+)<=([\d.]+)(us|ms)$/.exec(part)!;
    return { percentile: Number(o[1]), maxUs: Number(o[2]) * (o[3] === 'ms' ? 1000 : 1) };
  });
  return { cell: m[1]!, objective: objectiveText(objectives) };
}

function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
