/**
 * Trial statistics for one benchmark cell: every cell runs N trials (N from 3 to ~10); the
 * result keeps every trial and reports the median, a bootstrap 95% confidence interval of the
 * median and the coefficient of variation. Everything here is pure and deterministic (the
 * bootstrap uses a seeded PRNG, never Math.random) and nothing is rounded: callers round for
 * display.
 */

/** A cell whose coefficient of variation is above this (10%) is marked unstable. */
export const UNSTABLE_CV = 0.1;

export interface BootstrapOptions {
  /** Two-sided confidence level, strictly between 0 and 1. Default 0.95. */
  confidence?: number;
  /** Number of bootstrap resamples, a positive integer. Default 10,000. */
  resamples?: number;
  /** PRNG seed (any finite number; used as a 32-bit integer). Default 1. */
  seed?: number;
}

export interface ConfidenceInterval {
  low: number;
  high: number;
}

export interface TrialSummary {
  median: number;
  ci95Low: number;
  ci95High: number;
  /** sampleStdDev / |mean|; null for a single trial or a zero mean. */
  cv: number | null;
  n: number;
}

/** Throws a RangeError naming the problem unless xs is non-empty and every value is finite. */
function assertFiniteSample(xs: readonly number[], fn: string): void {
  if (xs.length === 0) throw new RangeError(`${fn}: empty input (need at least one value)`);
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i] as number;
    if (!Number.isFinite(x)) throw new RangeError(`${fn}: non-finite value ${String(x)} at index ${i}`);
  }
}

/** Median of an already sorted, non-empty array-like: mean of the two middle values for even n. */
function sortedMedian(sorted: ArrayLike<number>, n: number): number {
  const mid = n >> 1;
  const upper = sorted[mid] as number;
  return n % 2 === 1 ? upper : ((sorted[mid - 1] as number) + upper) / 2;
}

/** Median; for even n the mean of the two middle values. Throws RangeError on empty or non-finite input. */
export function median(xs: readonly number[]): number {
  assertFiniteSample(xs, 'median');
  const sorted = Float64Array.from(xs).sort();
  return sortedMedian(sorted, sorted.length);
}

/** Arithmetic mean. Throws RangeError on empty or non-finite input. */
export function mean(xs: readonly number[]): number {
  assertFiniteSample(xs, 'mean');
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}

/** Sample standard deviation (n - 1 denominator); 0 for a single value. Two-pass for accuracy. */
export function sampleStdDev(xs: readonly number[]): number {
  assertFiniteSample(xs, 'sampleStdDev');
  const n = xs.length;
  if (n === 1) return 0;
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) * (x - m);
  return Math.sqrt(ss / (n - 1));
}

/**
 * Coefficient of variation: sampleStdDev / |mean| (the absolute value only matters for negative
 * data; benchmark values are positive). null when there are fewer than two values or the mean is 0.
 * Throws RangeError on empty or non-finite input.
 */
export function coefficientOfVariation(xs: readonly number[]): number | null {
  assertFiniteSample(xs, 'coefficientOfVariation');
  if (xs.length < 2) return null;
  const m = mean(xs);
  if (m === 0) return null;
  return sampleStdDev(xs) / Math.abs(m);
}

/** mulberry32: a small, fast 32-bit PRNG; returns floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Nearest-rank quantile of a sorted array of length B: the element of 1-based rank
 * ceil(p * B), clamped to [1, B]; i.e. the smallest element such that at least a fraction p of
 * the array is <= it. p * B is nudged down by 1e-9 before the ceiling so that floating-point
 * noise does not push an exact rank up by one (1 - 0.05 / 2 and 0.05 / 2 are not exact in
 * binary: 0.025000000000000022 * 10000 must give rank 250, not 251).
 * Example: B = 10000, p = 0.025 -> rank 250 (index 249); p = 0.975 -> rank 9750 (index 9749).
 */
function nearestRank(sorted: Float64Array, p: number): number {
  const b = sorted.length;
  const rank = Math.min(b, Math.max(1, Math.ceil(p * b - 1e-9)));
  return sorted[rank - 1] as number;
}

/**
 * Percentile-bootstrap confidence interval of the median.
 *
 * Draws `resamples` resamples of n values with replacement (index = floor(u * n), u from a
 * mulberry32 PRNG seeded with `seed`), takes the median of each, sorts those medians and returns
 * the nearest-rank quantiles (see nearestRank) at p = (1 - c) / 2 and p = 1 - (1 - c) / 2.
 * For c = 0.95 and 10,000 resamples: low = 250th smallest, high = 9750th smallest.
 * For n = 1 the interval is [x, x]. The result always lies within [min(xs), max(xs)].
 */
export function bootstrapMedianCi(xs: readonly number[], opts: BootstrapOptions = {}): ConfidenceInterval {
  assertFiniteSample(xs, 'bootstrapMedianCi');
  const confidence = opts.confidence ?? 0.95;
  const resamples = opts.resamples ?? 10_000;
  const seed = opts.seed ?? 1;
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(
      `bootstrapMedianCi: confidence must be strictly between 0 and 1, got ${String(confidence)}`,
    );
  }
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`bootstrapMedianCi: resamples must be a positive integer, got ${String(resamples)}`);
  }
  if (!Number.isFinite(seed))
    throw new RangeError(`bootstrapMedianCi: seed must be finite, got ${String(seed)}`);

  const n = xs.length;
  if (n === 1) {
    const only = xs[0] as number;
    return { low: only, high: only };
  }

  const source = Float64Array.from(xs);
  const scratch = new Float64Array(n);
  const medians = new Float64Array(resamples);
  const rand = mulberry32(seed);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) scratch[i] = source[Math.floor(rand() * n)] as number;
    scratch.sort();
    medians[r] = sortedMedian(scratch, n);
  }
  medians.sort();

  const alpha = (1 - confidence) / 2;
  return { low: nearestRank(medians, alpha), high: nearestRank(medians, 1 - alpha) };
}

/** Median, bootstrap CI of the median (95% unless opts.confidence says otherwise), CV and n. */
export function summarizeTrials(values: readonly number[], opts: BootstrapOptions = {}): TrialSummary {
  assertFiniteSample(values, 'summarizeTrials');
  const ci = bootstrapMedianCi(values, opts);
  return {
    median: median(values),
    ci95Low: ci.low,
    ci95High: ci.high,
    cv: coefficientOfVariation(values),
    n: values.length,
  };
}

/** True when cv is strictly above threshold (default UNSTABLE_CV = 0.10); null (single trial / zero mean) is never unstable. */
export function isUnstable(cv: number | null, threshold: number = UNSTABLE_CV): boolean {
  return cv !== null && cv > threshold;
}

/** Student's t 0.975 quantile for 1..30 degrees of freedom (two-sided 95%). */
const T975 = [
  12.706204736174694, 4.302652729749462, 3.1824463052837078, 2.7764451051977934, 2.5705818356363146,
  2.4469118511449786, 2.364624251592784, 2.306004135204166, 2.262157162798205, 2.228138851986274,
  2.200985160091639, 2.1788128296672284, 2.1603686564627913, 2.144786687917804, 2.131449545559776,
  2.1199052992212546, 2.1098155778333156, 2.1009220402410382, 2.0930240544083087, 2.085963447265864,
  2.0796138447276795, 2.0738730679040254, 2.0686576104190486, 2.0638985616280245, 2.0595385527532972,
  2.0555294386428735, 2.0518305164802846, 2.0484071417952454, 2.045229642132703, 2.0422724563012378,
];

/** Student's t 0.9995 quantile for 1..30 degrees of freedom (two-sided 99.9%), from scipy.stats.t.ppf. */
const T9995 = [
  636.6192487687897, 31.599054576445365, 12.923978636687961, 8.610301581379522, 6.868826625881276,
  5.95881617881889, 5.407882520861828, 5.041305433373456, 4.780912585931217, 4.586893858702708,
  4.436979338234516, 4.3177912836062475, 4.22083172770718, 4.140454112738259, 4.072765195903846,
  4.014996327184108, 3.965126272119082, 3.9216458250852084, 3.883405852592131, 3.8495162749308744,
  3.8192771642745096, 3.792130671698437, 3.7676268043118246, 3.745398619290096, 3.725143949728693,
  3.7066117434809525, 3.6895917134592784, 3.6739064007013176, 3.6594050194663748, 3.6459586350420627,
];

/** The confidence levels an interval can be asked at: the t table each needs, and its normal quantile. */
const LEVELS = {
  0.95: { table: T975, z: 1.959963984540054 },
  0.999: { table: T9995, z: 3.2905267314919255 },
} as const;

/** A two-sided confidence level there is a t table for. */
export type ConfidenceLevel = keyof typeof LEVELS;

/**
 * Student's t quantile for a two-sided interval at `level` (the 0.975 quantile for 95%, 0.9995 for
 * 99.9%) with df degrees of freedom: a table up to 30, then the Cornish-Fisher expansion around the
 * normal quantile, which is within 1e-7 (95%) and 4e-6 (99.9%) of the exact value from 31 on.
 */
export function tQuantile(level: ConfidenceLevel, df: number): number {
  if (!Number.isInteger(df) || df < 1)
    throw new RangeError(`tQuantile: df must be a positive integer, got ${String(df)}`);
  const { table, z } = LEVELS[level] ?? {};
  if (!table || z === undefined)
    throw new RangeError(
      `tQuantile: level must be one of ${Object.keys(LEVELS).join(', ')}, got ${String(level)}`,
    );
  if (df <= table.length) return table[df - 1] as number;
  const z2 = z * z;
  const g1 = (z * (z2 + 1)) / 4;
  const g2 = (z * ((5 * z2 + 16) * z2 + 3)) / 96;
  const g3 = (z * (((3 * z2 + 19) * z2 + 17) * z2 - 15)) / 384;
  const g4 = (z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945)) / 92160;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4;
}

/** Student's t 0.975 quantile (the multiplier of a two-sided 95% interval) for df degrees of freedom. */
export function tQuantile975(df: number): number {
  if (!Number.isInteger(df) || df < 1)
    throw new RangeError(`tQuantile975: df must be a positive integer, got ${String(df)}`);
  return tQuantile(0.95, df);
}

export interface PairedRatio {
  /** Pairs (rounds) compared. */
  n: number;
  /** Geometric mean of b[i] / a[i]: how many times a's figure b's is, round by round. */
  ratio: number;
  /**
   * The t-based confidence interval of that geometric mean: exp(mean ± t · sd / √n) of the log
   * ratios, at 95% unless pairedRatio was asked for another level (the names keep the default's).
   * null for a single pair, which has no spread to speak of.
   */
  ci95Low: number | null;
  ci95High: number | null;
}

/**
 * Paired ratio of b over a, where a[i] and b[i] were measured in the same round (back to back,
 * so whatever else the machine did then weighed on both). Each round's ratio cancels what the
 * round had in common; the geometric mean and its t interval on the log ratios say how far b is
 * from a and how sure that is. An interval that excludes 1 is a difference beyond the noise.
 * `level` widens the interval: 0.999 where a chance miss must be rare (a test's verdict).
 * Throws a RangeError unless a and b are equally long, non-empty, finite and positive.
 */
export function pairedRatio(
  a: readonly number[],
  b: readonly number[],
  level: ConfidenceLevel = 0.95,
): PairedRatio {
  assertFiniteSample(a, 'pairedRatio');
  assertFiniteSample(b, 'pairedRatio');
  if (a.length !== b.length)
    throw new RangeError(`pairedRatio: a has ${a.length} values and b ${b.length}: pair them round by round`);
  const logs = a.map((x, i) => {
    const y = b[i] as number;
    if (!(x > 0 && y > 0))
      throw new RangeError(`pairedRatio: values must be positive, got a=${x} b=${y} at index ${i}`);
    return Math.log(y / x);
  });
  const n = logs.length;
  const m = mean(logs);
  if (n < 2) return { n, ratio: Math.exp(m), ci95Low: null, ci95High: null };
  const half = (tQuantile(level, n - 1) * sampleStdDev(logs)) / Math.sqrt(n);
  return { n, ratio: Math.exp(m), ci95Low: Math.exp(m - half), ci95High: Math.exp(m + half) };
}

/**
 * The paired ratio of two cells of one interleaved run group: trial i of each ran in round i + 1, so
 * they pair up; rounds where either got no throughput (a trial cut short at once) are left out. Null
 * when no round pairs. The CLI's group table and the site read a group through this one function.
 */
export function pairedRounds(
  a: readonly number[],
  b: readonly number[],
  level: ConfidenceLevel = 0.95,
): PairedRatio | null {
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i]! > 0 && b[i]! > 0) {
      x.push(a[i]!);
      y.push(b[i]!);
    }
  }
  return x.length > 0 ? pairedRatio(x, y, level) : null;
}

/** What pairedCellRatio reads of a cell: each trial's throughput, trial i from round i + 1. */
export interface PairedCell {
  trials: readonly { opsPerSec: number }[];
}

/**
 * Member over baseline for one cell of an interleaved group, round by round (pairedRounds); null when
 * no round pairs. The runner's group table, the site's tests and the dataset scripts pair cells here.
 */
export function pairedCellRatio(
  base: PairedCell,
  other: PairedCell,
  level: ConfidenceLevel = 0.95,
): PairedRatio | null {
  const ops = (c: PairedCell) => c.trials.map((t) => t.opsPerSec);
  return pairedRounds(ops(base), ops(other), level);
}

/** mulberry32 seeded with `seed`: floats in [0, 1), the same sequence for the same seed everywhere. */
export function seededRandom(seed: number): () => number {
  if (!Number.isFinite(seed)) throw new RangeError(`seededRandom: seed must be finite, got ${String(seed)}`);
  return mulberry32(seed);
}
