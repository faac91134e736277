import { type BetweenRunNoise, describeNoise, noiseBand } from './noise.js';
import { intervalText } from './spread.js';

// The browser's one entry to the rules (package export "./verdict"): the noise figures come with them.
export {
  type BetweenRunNoise,
  betweenRunNoise,
  DEFAULT_BETWEEN_RUN_CV,
  describeNoise,
  MIN_BETWEEN_RUN_CV,
  MIN_REPEATED_RESULTS,
  noiseBand,
  noiseFromMoments,
} from './noise.js';
export * from './spread.js';
export { type PairedRatio, pairedRatio, pairedRounds } from './stats.js';

/**
 * When a comparison may say "faster" or "slower", and why it says what it says. One set of rules
 * for every view: the site's compare and group pages (in the build and in the browser) and the CLI's
 * group table. Pure and small: the browser loads this file (package export "./verdict").
 */

/**
 * Warnings that make a cell's figure unfit to compare: the cell gets no verdict, and the page names
 * the warning. BUSY_HOST, CPU_STEAL: something else took the CPUs while it ran. DRIFT: the run's first
 * cell, measured again at the end, disagreed (the machine changed during the run: every cell is
 * suspect). UNSTABLE: its own trials disagree by more than 10% (CV). CLIENT_BOUND: the client, not the
 * server, was the limit. ERRORS: most replies were errors, so its ops/s are not the command's.
 * SLO_UNBRACKETED: a search at a latency objective (run --slo) found no answer to compare.
 */
export const NO_VERDICT_WARNINGS = [
  'BUSY_HOST',
  'CPU_STEAL',
  'DRIFT',
  'UNSTABLE',
  'CLIENT_BOUND',
  'ERRORS',
  'SLO_UNBRACKETED',
] as const;
export type NoVerdictWarning = (typeof NO_VERDICT_WARNINGS)[number];

const NO_VERDICT = new Set<string>(NO_VERDICT_WARNINGS);

/**
 * Other processes used more than this share of all CPUs during the cell: BUSY_HOST. Measured on the
 * 2-vCPU development VM (docs/BENCHMARKS.md, "Between-run noise"), quiet (5 quick-suite runs, 150
 * cells): median 0, largest 0.041 (one cell at 0.27, during which other work did run). With one
 * spinning process pinned to the server's CPU (2 runs): 0.074 to 0.30, median 0.15, while every
 * cell's throughput fell by about half. The scheduler gives such a hog far less than the half of a
 * CPU one might expect, so the earlier 0.15 let a third of the hogged cells through unflagged. 0.05
 * (a tenth of one CPU of two) lies between the two. Those figures are of the residual alone (host busy
 * less client and server), which reads low by the benchmark's own softirq on tick-accounting kernels
 * (issue 34); the figure now also counts other processes one by one (probe interference.ts otherWork).
 */
export const BUSY_HOST_OTHER_CPU_FRACTION = 0.05;

/**
 * The hypervisor took more than this share of the CPUs' time: CPU_STEAL. Steal is time the server or
 * client wanted to run and could not; a few percent already shows as throughput lost.
 */
export const CPU_STEAL_FRACTION = 0.05;

/**
 * The runner read the host's figures (steal is known) but could not measure other work: its CPU
 * accounting did not add up (the interference note says how). The cell is not known to be quiet, so
 * no verdict rests on it: it counts as BUSY_HOST. Off Linux both are null and nothing is said.
 */
export function otherWorkUnknown(f: InterferenceShares): boolean {
  return f.otherCpuFraction === null && f.stealFraction !== null;
}

/** A cell's interference figures as a result records them (only the two the thresholds read). */
export interface InterferenceShares {
  otherCpuFraction: number | null;
  stealFraction: number | null;
}

/**
 * The no-verdict warnings that apply to one cell: its own (warning.cell is its label), the run's
 * (warning.cell null: DRIFT, or any of them said of the whole run), and its unstable and client-bound
 * flags, which a result states on the cell itself. Sorted, each once.
 */
export function noVerdictWarnings(
  warnings: readonly { code: string; cell: string | null }[],
  cell: {
    label: string;
    unstable: boolean;
    clientBound: boolean | null;
    interference?: InterferenceShares | null;
  },
): NoVerdictWarning[] {
  const codes = new Set<string>();
  for (const w of warnings)
    if (NO_VERDICT.has(w.code) && (w.cell === null || w.cell === cell.label)) codes.add(w.code);
  // Today's thresholds also judge the figures an older runner recorded under looser ones: the
  // warning a result carries is what its runner thought then, the figure is what happened.
  const f = cell.interference;
  if (
    f &&
    (otherWorkUnknown(f) || (f.otherCpuFraction != null && f.otherCpuFraction > BUSY_HOST_OTHER_CPU_FRACTION))
  )
    codes.add('BUSY_HOST');
  if (f?.stealFraction != null && f.stealFraction > CPU_STEAL_FRACTION) codes.add('CPU_STEAL');
  if (cell.unstable) codes.add('UNSTABLE');
  if (cell.clientBound) codes.add('CLIENT_BOUND');
  return NO_VERDICT_WARNINGS.filter((c) => codes.has(c));
}

/** Which rule decided a verdict; the text says it in words. */
export type VerdictRule =
  /** A cell carries a no-verdict warning. */
  | 'flagged'
  /** Single trials (or imported figures): no interval to judge by. */
  | 'no-interval'
  /** The two sides' spreads overlap (each a 95% interval of its median, or the range of its values: spread.ts). */
  | 'intervals-overlap'
  /** The intervals are apart, but the difference is inside the between-run noise band. */
  | 'within-noise'
  /** Intervals apart and the difference beyond the between-run noise band. */
  | 'beyond-noise'
  /** Interleaved: the paired interval of the per-round ratios excludes 1 (or holds it). */
  | 'paired-excludes-1'
  | 'paired-holds-1'
  /** Interleaved, but one round only: no paired interval. */
  | 'paired-one-round'
  /** The two ran on different machine kinds or configurations (identity.ts): the ratio is shown, never a verdict. */
  | 'different-kind';

export interface Verdict {
  outcome: 'faster' | 'slower' | 'no verdict';
  rule: VerdictRule;
  /** The outcome and its reason, as a reader sees it: "faster: paired interval 1.08-1.12 excludes 1 (5 rounds)". */
  text: string;
}

/** What the rules read of one side of a comparison. */
export interface VerdictCell {
  median: number;
  /** Its spread (spread.ts): a 95% interval of the median from 6 values, else their range; null for none. */
  low: number | null;
  high: number | null;
  /** What low–high is, as the reader sees it ("range of 3 trials"): the verdict's text names it. */
  spread: string;
  /** Its no-verdict warnings (noVerdictWarnings). */
  warnings: readonly string[];
  /** The between-run noise of its environment and workload. */
  noise: BetweenRunNoise;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const signedPct = (x: number) => `${x >= 0 ? '+' : '−'}${pct(Math.abs(x))}`;

/** "no verdict: BUSY_HOST in this result's cell; UNSTABLE in the baseline's", or null when neither is flagged. */
export function flaggedVerdict(base: readonly string[], other: readonly string[]): Verdict | null {
  if (base.length === 0 && other.length === 0) return null;
  const parts: string[] = [];
  if (other.length > 0) parts.push(`${other.join(', ')} in this result's cell`);
  if (base.length > 0) parts.push(`${base.join(', ')} in the baseline's cell`);
  return { outcome: 'no verdict', rule: 'flagged', text: `no verdict: ${parts.join('; ')}` };
}

/**
 * Two results that did not run together (or a group that did not interleave): "faster" or "slower"
 * only when the two sides' spreads are apart AND the ratio of their medians lies outside the
 * between-run noise band of their environments (noiseBand); no verdict on a flagged cell. A spread is
 * a 95% interval of the median from 6 values on, else the whole range of the values (spread.ts): a
 * range holds the interval, so the rule on ranges is the stricter one, never the looser.
 */
export function unpairedVerdict(base: VerdictCell, other: VerdictCell): Verdict {
  const flagged = flaggedVerdict(base.warnings, other.warnings);
  if (flagged) return flagged;
  const none = (rule: VerdictRule, why: string): Verdict => ({
    outcome: 'no verdict',
    rule,
    text: `no verdict: ${why}`,
  });
  const { low: bl, high: bh } = base;
  const { low: ol, high: oh } = other;
  if (bl === null || bh === null || ol === null || oh === null || (bl === bh && ol === oh))
    return none('no-interval', 'single trials, no spread to judge by');
  const spreads = spreadsText(base, other);
  if (!(ol > bh || oh < bl)) return none('intervals-overlap', `${spreads} overlap (each run's own noise)`);
  const diff = other.median / base.median - 1;
  const band = noiseBand(base.noise, other.noise);
  // The band in the difference's own terms: a factor either way, so its two ends differ as percentages.
  const noise = `between-run noise −${pct(-Math.expm1(-band))} to +${pct(Math.expm1(band))} (${noiseText(base.noise, other.noise)})`;
  if (Math.abs(Math.log(other.median / base.median)) <= band)
    return none('within-noise', `difference ${signedPct(diff)} within ${noise}`);
  const outcome = diff > 0 ? 'faster' : 'slower';
  return {
    outcome,
    rule: 'beyond-noise',
    text: `${outcome}: difference ${signedPct(diff)} beyond ${noise}; ${spreads} apart`,
  };
}

/** "the two ranges of 3 trials", "the two spreads (range of 3 trials; 95% interval of the median of 6 trials)". */
function spreadsText(a: VerdictCell, b: VerdictCell): string {
  if (a.spread === b.spread)
    return `the two ${a.spread.replace(/^range of/, 'ranges of').replace(/^95% interval/, '95% intervals')}`;
  return `the two spreads (baseline: ${a.spread}; this: ${b.spread})`;
}

function noiseText(a: BetweenRunNoise, b: BetweenRunNoise): string {
  const same = a.cv === b.cv && a.results === b.results && a.source === b.source;
  return same ? describeNoise(a) : `baseline: ${describeNoise(a)}; this result: ${describeNoise(b)}`;
}

/**
 * An interleaved group: its members ran round by round, so the per-round ratios carry the
 * between-run noise themselves and the paired interval is its own evidence. "faster" or "slower"
 * when that 95% interval excludes 1; no verdict on a flagged cell or with a single round.
 */
export function pairedVerdict(
  paired: { n: number; ci95Low: number | null; ci95High: number | null } | null,
  baseWarnings: readonly string[],
  otherWarnings: readonly string[],
): Verdict {
  const flagged = flaggedVerdict(baseWarnings, otherWarnings);
  if (flagged) return flagged;
  if (!paired || paired.ci95Low === null || paired.ci95High === null)
    return {
      outcome: 'no verdict',
      rule: 'paired-one-round',
      text: 'no verdict: one round, no paired interval',
    };
  const interval = `paired interval ${intervalText(paired.ci95Low, paired.ci95High)}`;
  const rounds = `${paired.n} round${paired.n === 1 ? '' : 's'}`;
  if (paired.ci95Low > 1 || paired.ci95High < 1) {
    const outcome = paired.ci95Low > 1 ? 'faster' : 'slower';
    return { outcome, rule: 'paired-excludes-1', text: `${outcome}: ${interval} excludes 1 (${rounds})` };
  }
  return {
    outcome: 'no verdict',
    rule: 'paired-holds-1',
    text: `no verdict: ${interval} holds 1 (${rounds})`,
  };
}

/**
 * The one comparison of two sides (two results, or two server versions on one machine kind and
 * configuration) that every view makes: home, version, machine and group pages, the explorer and its
 * JSON, the compare page and the CLI's group table. Which evidence decides is chosen here, once:
 *   1. an interleaved run group that holds both: its paired ratio (geometric mean of the per-round
 *      ratios) with the t-based 95% interval of it, "faster"/"slower" when that interval excludes 1;
 *   2. else the ratio of the two medians, "faster"/"slower" only when the two sides' spreads are apart
 *      and the ratio is beyond the between-run noise (unpairedVerdict). The ratio of medians has no
 *      interval of its own: none is given.
 * Both rules give no verdict on a flagged cell. Across machine kinds or configurations no view calls
 * this: the ratio measures the machine as much as the server.
 */

/** A run group's paired evidence for the pair: what pairedRatio gives, and the group it came from. */
export interface PairedEvidence {
  n: number;
  ratio: number;
  ci95Low: number | null;
  ci95High: number | null;
  groupId: string | null;
  /**
   * The no-verdict warnings of the two cells the group measured, where a side holds more results than
   * the group's (a server version's bar): the paired verdict reads those cells'. Absent: the sides'.
   */
  baseWarnings?: readonly string[];
  otherWarnings?: readonly string[];
}

export interface PairComparison {
  basis: 'paired' | 'unpaired';
  /** other over base. */
  ratio: number;
  /** The paired 95% interval of the ratio (basis paired, two rounds or more); null otherwise. */
  low: number | null;
  high: number | null;
  /** Rounds behind a paired figure; null for unpaired. */
  rounds: number | null;
  groupId: string | null;
  verdict: Verdict;
}

/** `other` against `base`, by the rule above. Null when the base's median is not positive (no ratio). */
export function comparePair(
  base: VerdictCell,
  other: VerdictCell,
  paired: PairedEvidence | null,
): PairComparison | null {
  if (paired)
    return {
      basis: 'paired',
      ratio: paired.ratio,
      low: paired.ci95Low,
      high: paired.ci95High,
      rounds: paired.n,
      groupId: paired.groupId,
      verdict: pairedVerdict(
        paired,
        paired.baseWarnings ?? base.warnings,
        paired.otherWarnings ?? other.warnings,
      ),
    };
  if (!(base.median > 0)) return null;
  return {
    basis: 'unpaired',
    ratio: other.median / base.median,
    low: null,
    high: null,
    rounds: null,
    groupId: null,
    verdict: unpairedVerdict(base, other),
  };
}
