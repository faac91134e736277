import { medianCiOrderStatistics } from './median-ci.js';

/**
 * How far a median's evidence reaches, said honestly. A figure that is the median of a few values
 * (a cell's trials, or several results' medians) comes with one of:
 *   - "95% interval of the median of n trials": the exact, distribution-free order-statistic interval
 *     (median-ci.ts, binomial), from MIN_VALUES_FOR_MEDIAN_CI values on, where it reaches 95% coverage
 *     (6 values: the 1st and 6th, 96.9%);
 *   - "range of k trials": with 2 to 5 values no interval of the median reaches 95% (the whole range of
 *     3 covers it 75% of the time, of 5 94%), so the smallest and largest are given and called a range;
 *   - one value: no spread.
 * The median's interval was chosen over a t-interval of the mean because every figure the site shows
 * is a median: an interval of another statistic beside it would describe something not shown, and the
 * t-interval leans on normal trials, which a throttled or disturbed trial is not.
 */
export const MIN_VALUES_FOR_MEDIAN_CI = 6;

export type SpreadKind = 'median-ci' | 'range' | 'single';

export interface Spread {
  kind: SpreadKind;
  low: number;
  high: number;
  /** Values behind it. */
  n: number;
  /** The interval's coverage (median-ci: at least 0.95; range: what the range of n covers; single: null). */
  coverage: number | null;
}

/** What the values are: a cell's trials, or results' medians. */
export type SpreadUnit = 'trial' | 'result';

/** The spread of these values' median, by the rule above. Throws RangeError on empty or non-finite input. */
export function spreadOf(values: readonly number[]): Spread {
  const ci = medianCiOrderStatistics(values);
  const n = values.length;
  if (n === 1) return { kind: 'single', low: ci.low, high: ci.high, n, coverage: null };
  return {
    kind: n >= MIN_VALUES_FOR_MEDIAN_CI ? 'median-ci' : 'range',
    low: ci.low,
    high: ci.high,
    n,
    coverage: ci.coverage,
  };
}

/** "95% interval of the median of 10 trials", "range of 3 trials", "1 trial, no spread". */
export function spreadText(s: Pick<Spread, 'kind' | 'n'>, unit: SpreadUnit): string {
  const units = `${s.n} ${unit}${s.n === 1 ? '' : 's'}`;
  if (s.kind === 'median-ci') return `95% interval of the median of ${units}`;
  if (s.kind === 'range') return `range of ${units}`;
  return `${units}, no spread`;
}

/** The kind the values' count gives (for a figure whose values are not at hand, only their count). */
export function spreadKindOf(n: number): SpreadKind {
  return n <= 1 ? 'single' : n >= MIN_VALUES_FOR_MEDIAN_CI ? 'median-ci' : 'range';
}

/**
 * The decimals to print a ratio's interval with: 3, or more where fewer would round a bound that is
 * not 1 to "1.000" (1.0003 beside "faster" must not read 1.000). A double that is not 1 differs from
 * it within 17 decimals, so the loop ends. Both bounds and the ratio take the same number, so they line up.
 */
export function intervalDecimals(low: number | null, high: number | null, min = 3): number {
  const one = (d: number) => (1).toFixed(d);
  const readsOne = (x: number | null, d: number) => x !== null && x !== 1 && x.toFixed(d) === one(d);
  let d = min;
  while (d < 17 && (readsOne(low, d) || readsOne(high, d))) d++;
  return d;
}

/** "1.047–1.112" (decimals by intervalDecimals), "—" for a missing bound. */
export function intervalText(low: number | null, high: number | null): string {
  const d = intervalDecimals(low, high);
  const f = (x: number | null) => (x === null ? '—' : x.toFixed(d));
  return `${f(low)}–${f(high)}`;
}

/** "1.079× (1.047–1.112)": a ratio with its interval, in the interval's decimals; "1.08×" without one. */
export function ratioText(ratio: number, low: number | null, high: number | null): string {
  if (low === null || high === null) return `${ratio.toFixed(2)}×`;
  return `${ratio.toFixed(intervalDecimals(low, high))}× (${intervalText(low, high)})`;
}

/**
 * What a page giving many verdicts says of them: at 95% each comparison has a 1 in 20 chance of an
 * interval excluding 1 when nothing differs, so a page of N comparisons holds about N/20 such by chance.
 * `oneRun`: every comparison comes from one run on one machine (a run group), so whatever that run had in
 * common with itself (the machine that day) is in every one of them, and none is a replication.
 */
export function multiplicityNote(comparisons: number, oneRun: boolean): string {
  const chance = comparisons / 20;
  const about =
    chance < 1 ? 'fewer than 1' : `about ${Number.isInteger(chance) ? chance : chance.toFixed(1)}`;
  const run = oneRun ? ' They all come from one run on one machine: none repeats another.' : '';
  return `${comparisons} comparison${comparisons === 1 ? '' : 's'} on this page; at 95%, ${about} could exclude 1 by chance alone.${run}`;
}

/**
 * The note for a page's comparisons, each with the run group whose paired evidence decided it (null:
 * unpaired): null for fewer than two (one verdict needs no such word); "one run on one machine" when
 * every one of them came from the same group.
 */
export function multiplicityOf(comparisons: readonly { groupId: string | null }[]): string | null {
  if (comparisons.length < 2) return null;
  const first = comparisons[0]!.groupId;
  return multiplicityNote(
    comparisons.length,
    first !== null && comparisons.every((c) => c.groupId === first),
  );
}
