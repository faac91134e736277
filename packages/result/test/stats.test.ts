import { describe, expect, it } from 'vitest';
import {
  bootstrapMedianCi,
  coefficientOfVariation,
  isUnstable,
  mean,
  median,
  pairedRatio,
  sampleStdDev,
  seededRandom,
  summarizeTrials,
  tQuantile,
  tQuantile975,
  UNSTABLE_CV,
} from '../src/stats.js';

/** Test-local seeded PRNG (mulberry32), independent of the one inside stats.ts. */
function testRng(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('median', () => {
  it('takes the middle value for odd n', () => {
    // sorted [1, 2, 3] -> middle is 2
    expect(median([3, 1, 2])).toBe(2);
    expect(median([7])).toBe(7);
  });

  it('averages the two middle values for even n', () => {
    // sorted [1, 2, 3, 4] -> (2 + 3) / 2 = 2.5
    expect(median([4, 1, 3, 2])).toBe(2.5);
    // sorted [-5, 10] -> (-5 + 10) / 2 = 2.5
    expect(median([10, -5])).toBe(2.5);
  });

  it('sorts numerically, not lexicographically', () => {
    // sorted [2, 10, 100] -> 10 (a string sort would give [10, 100, 2] -> 100)
    expect(median([100, 2, 10])).toBe(10);
  });

  it('does not mutate its input', () => {
    const xs = [3, 1, 2];
    median(xs);
    expect(xs).toEqual([3, 1, 2]);
  });

  it('rejects empty and non-finite input with a RangeError naming the problem', () => {
    expect(() => median([])).toThrow(RangeError);
    expect(() => median([])).toThrow(/empty/);
    expect(() => median([1, Number.NaN])).toThrow(RangeError);
    expect(() => median([1, Number.NaN])).toThrow(/non-finite value NaN at index 1/);
    expect(() => median([Number.POSITIVE_INFINITY])).toThrow(/non-finite value Infinity/);
  });
});

describe('mean, sampleStdDev, coefficientOfVariation', () => {
  it('computes hand-worked values for [100, 110, 90, 100]', () => {
    const xs = [100, 110, 90, 100];
    // mean = (100 + 110 + 90 + 100) / 4 = 400 / 4 = 100
    expect(mean(xs)).toBe(100);
    // deviations 0, 10, -10, 0; std = sqrt((0^2 + 10^2 + (-10)^2 + 0^2) / 3) = sqrt(200 / 3) = 8.16497
    expect(sampleStdDev(xs)).toBeCloseTo(Math.sqrt(200 / 3), 12);
    expect(sampleStdDev(xs)).toBeCloseTo(8.165, 3);
    // cv = 8.16497 / 100 = 0.0816497 -> under 10%, stable
    const cv = coefficientOfVariation(xs);
    expect(cv).toBeCloseTo(0.08165, 5);
    expect(isUnstable(cv)).toBe(false);
  });

  it('flags [100, 130, 70] as unstable', () => {
    const xs = [100, 130, 70];
    // mean = 300 / 3 = 100; std = sqrt((0^2 + 30^2 + (-30)^2) / 2) = sqrt(1800 / 2) = 30
    expect(mean(xs)).toBe(100);
    expect(sampleStdDev(xs)).toBe(30);
    // cv = 30 / 100 = 0.3 > 0.10
    const cv = coefficientOfVariation(xs);
    expect(cv).toBeCloseTo(0.3, 12);
    expect(isUnstable(cv)).toBe(true);
  });

  it('gives std 0 and cv null for a single value', () => {
    expect(mean([5])).toBe(5);
    expect(sampleStdDev([5])).toBe(0);
    expect(coefficientOfVariation([5])).toBeNull();
  });

  it('gives cv 0 for all-equal values and null for a zero mean', () => {
    expect(coefficientOfVariation([42, 42, 42, 42])).toBe(0);
    // mean = (-1 + 1) / 2 = 0 -> cv undefined -> null
    expect(coefficientOfVariation([-1, 1])).toBeNull();
  });

  it('rejects empty and non-finite input', () => {
    for (const fn of [mean, sampleStdDev, coefficientOfVariation]) {
      expect(() => fn([])).toThrow(RangeError);
      expect(() => fn([1, Number.NaN])).toThrow(/non-finite/);
    }
  });
});

describe('isUnstable', () => {
  it('is strictly above the threshold, and null is never unstable', () => {
    expect(UNSTABLE_CV).toBe(0.1);
    expect(isUnstable(null)).toBe(false);
    expect(isUnstable(0)).toBe(false);
    expect(isUnstable(0.1)).toBe(false);
    expect(isUnstable(0.1000001)).toBe(true);
    expect(isUnstable(0.06, 0.05)).toBe(true);
    expect(isUnstable(0.04, 0.05)).toBe(false);
  });
});

describe('bootstrapMedianCi', () => {
  it('returns [x, x] for a single value and for all-equal values', () => {
    expect(bootstrapMedianCi([5])).toEqual({ low: 5, high: 5 });
    // every resample of [7, 7, 7] is (7, 7, 7) with median 7
    expect(bootstrapMedianCi([7, 7, 7])).toEqual({ low: 7, high: 7 });
  });

  it('matches the enumerable distribution for xs = [1, 2]', () => {
    // Resamples (1,1) (1,2) (2,1) (2,2), each with probability 1/4, have medians 1, 1.5, 1.5, 2:
    // P(median = 1) = 0.25, P(1.5) = 0.5, P(2) = 0.25.
    // Nearest-rank quantile at p = smallest sorted median with at least a fraction p of medians <= it.
    // c = 0.95: p = 0.025 < ~0.25 -> 1; p = 0.975 > ~0.75 -> 2.
    expect(bootstrapMedianCi([1, 2])).toEqual({ low: 1, high: 2 });
    // c = 0.4: p = 0.3 and p = 0.7 both fall inside the 1.5 block (~0.25..~0.75) -> [1.5, 1.5].
    // (With 10,000 resamples the share of 1s is 0.25 +- 0.0043 (1 sd), so 0.3 is ~11 sd away.)
    expect(bootstrapMedianCi([1, 2], { confidence: 0.4 })).toEqual({ low: 1.5, high: 1.5 });
    // c = 0.6: p = 0.2 -> 1; p = 0.8 -> 2.
    expect(bootstrapMedianCi([1, 2], { confidence: 0.6 })).toEqual({ low: 1, high: 2 });
  });

  it('matches the enumerable distribution for xs = [1, 2, 3]', () => {
    // 27 equally likely ordered resamples. Median is 1 iff at least two draws are 1:
    // 3 * 2 (exactly two 1s: 3 positions for the odd one, 2 values) + 1 (three 1s) = 7 -> 7/27 = 0.259.
    // By symmetry P(median = 3) = 7/27, so P(median = 2) = 13/27 = 0.481.
    // c = 0.95 -> p = 0.025 -> 1, p = 0.975 -> 3.
    expect(bootstrapMedianCi([3, 1, 2])).toEqual({ low: 1, high: 3 });
    // c = 0.4 -> p = 0.3 and 0.7, both inside the 2 block (0.259..0.741) -> [2, 2].
    expect(bootstrapMedianCi([3, 1, 2], { confidence: 0.4 })).toEqual({ low: 2, high: 2 });
  });

  it('uses a single resample for both ends when resamples = 1', () => {
    // B = 1: rank ceil(0.025 * 1) = 1 and ceil(0.975 * 1) = 1 -> the same element.
    const ci = bootstrapMedianCi([1, 5, 9, 20], { resamples: 1 });
    expect(ci.low).toBe(ci.high);
    expect(ci.low).toBeGreaterThanOrEqual(1);
    expect(ci.low).toBeLessThanOrEqual(20);
  });

  it('is deterministic per seed; different seeds both contain the median', () => {
    const xs = [101, 97, 110, 93, 104, 99, 120];
    const m = median(xs); // sorted [93, 97, 99, 101, 104, 110, 120] -> 101
    expect(m).toBe(101);
    const a = bootstrapMedianCi(xs, { seed: 42 });
    const b = bootstrapMedianCi(xs, { seed: 42 });
    expect(b).toEqual(a);
    expect(bootstrapMedianCi(xs)).toEqual(bootstrapMedianCi(xs, { seed: 1 }));
    for (const seed of [1, 2, 3, 42, 123456789]) {
      const ci = bootstrapMedianCi(xs, { seed });
      expect(ci.low).toBeLessThanOrEqual(m);
      expect(ci.high).toBeGreaterThanOrEqual(m);
    }
    // With few resamples the interval depends visibly on the seed.
    const small = new Set<string>();
    for (let seed = 1; seed <= 20; seed++)
      small.add(JSON.stringify(bootstrapMedianCi(xs, { seed, resamples: 20 })));
    expect(small.size).toBeGreaterThan(1);
  });

  it('always contains the median and lies within [min, max]', () => {
    const rand = testRng(7);
    for (let trial = 0; trial < 200; trial++) {
      const n = 2 + Math.floor(rand() * 9); // 2..10
      const xs = Array.from({ length: n }, () => Math.round(rand() * 1000) / 10);
      const m = median(xs);
      const ci = bootstrapMedianCi(xs, { seed: trial, resamples: 2000 });
      expect(ci.low).toBeLessThanOrEqual(ci.high);
      expect(ci.low).toBeLessThanOrEqual(m);
      expect(ci.high).toBeGreaterThanOrEqual(m);
      expect(ci.low).toBeGreaterThanOrEqual(Math.min(...xs));
      expect(ci.high).toBeLessThanOrEqual(Math.max(...xs));
    }
  });

  it('covers the true median in roughly 85-99% of repetitions (n = 7, exponential)', () => {
    // Exponential(rate 1) via inverse CDF: x = -ln(1 - u); true median = ln 2.
    // For n = 7 the interval is [x(2), x(6)]: a resample median is <= x(1) only if >= 4 of 7 draws
    // hit x(1), P(Bin(7, 1/7) >= 4) = 0.010 < 0.025, while P(Bin(7, 2/7) >= 4) = 0.108 > 0.025.
    // [x(2), x(6)] covers the true median with probability sum_{k=2..5} C(7,k) / 2^7 = 112/128
    // = 0.875 (binomial sd over 300 reps: 0.019): anti-conservative vs the nominal 0.95.
    // The data and bootstrap seeds are fixed, so this exact run is reproducible (it gives 0.90).
    const rand = testRng(2024);
    const trueMedian = Math.LN2;
    const reps = 300;
    let covered = 0;
    for (let rep = 0; rep < reps; rep++) {
      const xs = Array.from({ length: 7 }, () => -Math.log(1 - rand()));
      const ci = bootstrapMedianCi(xs, { seed: rep + 1, resamples: 2000 });
      if (ci.low <= trueMedian && trueMedian <= ci.high) covered++;
    }
    const coverage = covered / reps;
    expect(coverage).toBeGreaterThanOrEqual(0.85);
    expect(coverage).toBeLessThanOrEqual(0.99);
  });

  it('rejects empty / non-finite input and bad options', () => {
    expect(() => bootstrapMedianCi([])).toThrow(RangeError);
    expect(() => bootstrapMedianCi([])).toThrow(/empty/);
    expect(() => bootstrapMedianCi([1, Number.NaN, 3])).toThrow(/non-finite value NaN at index 1/);
    expect(() => bootstrapMedianCi([1, 2], { confidence: 1 })).toThrow(/confidence/);
    expect(() => bootstrapMedianCi([1, 2], { confidence: 0 })).toThrow(/confidence/);
    expect(() => bootstrapMedianCi([1, 2], { resamples: 0 })).toThrow(/resamples/);
    expect(() => bootstrapMedianCi([1, 2], { resamples: 1.5 })).toThrow(/resamples/);
    expect(() => bootstrapMedianCi([1, 2], { seed: Number.NaN })).toThrow(/seed/);
  });
});

describe('summarizeTrials', () => {
  it('summarizes a stable cell', () => {
    const s = summarizeTrials([100, 110, 90, 100]);
    // sorted [90, 100, 100, 110] -> median (100 + 100) / 2 = 100; cv = sqrt(200/3) / 100
    expect(s.median).toBe(100);
    expect(s.n).toBe(4);
    expect(s.cv).toBeCloseTo(0.08165, 5);
    expect(s.ci95Low).toBeLessThanOrEqual(100);
    expect(s.ci95High).toBeGreaterThanOrEqual(100);
    expect(s.ci95Low).toBeGreaterThanOrEqual(90);
    expect(s.ci95High).toBeLessThanOrEqual(110);
    expect(isUnstable(s.cv)).toBe(false);
    expect(summarizeTrials([100, 110, 90, 100])).toEqual(s);
  });

  it('summarizes an unstable cell', () => {
    const s = summarizeTrials([100, 130, 70]);
    expect(s.median).toBe(100);
    expect(s.cv).toBeCloseTo(0.3, 12);
    expect(isUnstable(s.cv)).toBe(true);
  });

  it('handles a single trial and all-equal trials', () => {
    expect(summarizeTrials([5])).toEqual({ median: 5, ci95Low: 5, ci95High: 5, cv: null, n: 1 });
    expect(summarizeTrials([8, 8, 8])).toEqual({ median: 8, ci95Low: 8, ci95High: 8, cv: 0, n: 3 });
  });

  it('passes bootstrap options through', () => {
    const xs = [10, 12, 11, 15, 9];
    const s = summarizeTrials(xs, { seed: 9, resamples: 500 });
    const ci = bootstrapMedianCi(xs, { seed: 9, resamples: 500 });
    expect([s.ci95Low, s.ci95High]).toEqual([ci.low, ci.high]);
  });

  it('rejects empty and non-finite input', () => {
    expect(() => summarizeTrials([])).toThrow(RangeError);
    expect(() => summarizeTrials([1, Number.POSITIVE_INFINITY])).toThrow(/non-finite/);
  });
});

describe('tQuantile975', () => {
  it('matches the exact quantiles (scipy.stats.t.ppf(0.975, df)) in the table and past it', () => {
    expect(tQuantile975(1)).toBeCloseTo(12.706204736174694, 12);
    expect(tQuantile975(4)).toBeCloseTo(2.7764451051977934, 12);
    expect(tQuantile975(30)).toBeCloseTo(2.0422724563012378, 12);
    // Cornish-Fisher from 31 on: checked against the exact values to 1e-7.
    for (const [df, exact] of [
      [31, 2.039513446396408],
      [40, 2.021075390306273],
      [60, 2.0002978220142604],
      [100, 1.9839715185235518],
      [1000, 1.9623390808264083],
    ] as const)
      expect(Math.abs(tQuantile975(df) - exact)).toBeLessThan(1e-7);
  });

  it('refuses a df that is not a positive integer', () => {
    expect(() => tQuantile975(0)).toThrow(/positive integer, got 0/);
    expect(() => tQuantile975(2.5)).toThrow(RangeError);
  });
});

describe('tQuantile', () => {
  it('at 99.9% matches scipy.stats.t.ppf(0.9995, df) in the table and, to 4e-6, past it', () => {
    expect(tQuantile(0.999, 1)).toBeCloseTo(636.6192487687897, 9);
    expect(tQuantile(0.999, 3)).toBeCloseTo(12.923978636687961, 12);
    expect(tQuantile(0.999, 30)).toBeCloseTo(3.6459586350420627, 12);
    for (const [df, exact] of [
      [31, 3.6334563497583714],
      [40, 3.550965760863349],
      [60, 3.460200469196392],
      [100, 3.390491311164263],
      [1000, 3.300282648423944],
    ] as const)
      expect(Math.abs(tQuantile(0.999, df) - exact)).toBeLessThan(4e-6);
  });

  it('at 95% is tQuantile975', () => {
    for (const df of [1, 4, 30, 31, 1000]) expect(tQuantile(0.95, df)).toBe(tQuantile975(df));
  });

  it('refuses a level it has no table for, and says which it has', () => {
    expect(() => tQuantile(0.9 as 0.95, 4)).toThrow(/level must be one of 0\.95, 0\.999, got 0\.9/);
  });
});

describe('pairedRatio', () => {
  it('at level 0.999 gives the wider 99.9% interval around the same ratio (scipy agrees)', () => {
    // numpy/scipy: exp(l.mean() ± t.ppf(0.9995, 3) * l.std(ddof=1) / sqrt(4))
    const r = pairedRatio([100, 110, 90, 105], [102, 108, 95, 100], 0.999);
    expect(r.ratio).toBeCloseTo(1.0016840528592208, 12);
    expect(r.ci95Low!).toBeCloseTo(0.7498982740205765, 12);
    expect(r.ci95High!).toBeCloseTo(1.3380094027592635, 12);
  });

  it('is the geometric mean of the per-round ratios with a t interval on their logs (scipy agrees)', () => {
    // numpy/scipy: l = log(b / a); exp(l.mean() ± t.ppf(0.975, 3) * l.std(ddof=1) / sqrt(4))
    const r = pairedRatio([100, 110, 90, 105], [102, 108, 95, 100]);
    expect(r.n).toBe(4);
    expect(r.ratio).toBeCloseTo(1.0016840528592208, 12);
    expect(r.ci95Low!).toBeCloseTo(0.9327622288035743, 12);
    expect(r.ci95High!).toBeCloseTo(1.0756985121915448, 12);
  });

  it('cancels what a round had in common: a machine slowed in some rounds does not move the ratio', () => {
    // b is 10% faster than a in every round; rounds 2 and 3 ran while something else loaded the
    // machine (half and a third the speed). The medians' ratio is thrown off, the paired one is not.
    const load = [1, 0.5, 0.33, 1, 0.9];
    const a = load.map((f) => 100_000 * f);
    const b = load.map((f) => 110_000 * f);
    const r = pairedRatio(a, b);
    expect(r.ratio).toBeCloseTo(1.1, 12);
    expect(r.ci95Low!).toBeCloseTo(1.1, 12);
    expect(r.ci95High!).toBeCloseTo(1.1, 12);
    // The same load landing on b only (a run of a, then one of b): b looks slower than a, with a
    // wide interval, though b was 10% faster throughout.
    const sequential = pairedRatio(
      a.map(() => 100_000),
      b,
    );
    expect(sequential.ratio).toBeLessThan(0.9);
    expect(sequential.ci95High! - sequential.ci95Low!).toBeGreaterThan(0.5);
  });

  it('is symmetric: b over a is the inverse of a over b, interval included', () => {
    const a = [120, 95, 101, 99, 130];
    const b = [118, 99, 97, 104, 126];
    const ab = pairedRatio(a, b);
    const ba = pairedRatio(b, a);
    expect(ab.ratio * ba.ratio).toBeCloseTo(1, 12);
    expect(ab.ci95Low! * ba.ci95High!).toBeCloseTo(1, 12);
    expect(ab.ci95High! * ba.ci95Low!).toBeCloseTo(1, 12);
  });

  it('gives no interval for a single round', () => {
    expect(pairedRatio([200], [100])).toEqual({ n: 1, ratio: 0.5, ci95Low: null, ci95High: null });
  });

  it('refuses unequal lengths, empty, non-finite and non-positive input with what was wrong', () => {
    expect(() => pairedRatio([1, 2], [1])).toThrow(/a has 2 values and b 1: pair them round by round/);
    expect(() => pairedRatio([], [])).toThrow(/empty input/);
    expect(() => pairedRatio([1, Number.NaN], [1, 2])).toThrow(/non-finite value NaN at index 1/);
    expect(() => pairedRatio([1, 0], [1, 2])).toThrow(/must be positive, got a=0 b=2 at index 1/);
  });

  it('covers a true ratio of 1 in about 95% of A/A comparisons', () => {
    // 2,000 simulated A/A runs of 5 rounds with log-normal noise: the interval holds 1.0 about
    // 95% of the time (a binomial 99.9% band around 0.95 for 2,000 draws is ±1.6%).
    const rand = seededRandom(7);
    const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    let covered = 0;
    for (let run = 0; run < 2000; run++) {
      const a = Array.from({ length: 5 }, () => 1e5 * Math.exp(0.1 * gauss()));
      const b = Array.from({ length: 5 }, () => 1e5 * Math.exp(0.1 * gauss()));
      const r = pairedRatio(a, b);
      if (r.ci95Low! <= 1 && 1 <= r.ci95High!) covered++;
    }
    expect(covered / 2000).toBeGreaterThan(0.934);
    expect(covered / 2000).toBeLessThan(0.966);
  });
});

describe('seededRandom', () => {
  it('gives the same sequence for the same seed, another for another seed', () => {
    const take = (seed: number) => {
      const r = seededRandom(seed);
      return Array.from({ length: 5 }, r);
    };
    expect(take(42)).toEqual(take(42));
    expect(take(42)).not.toEqual(take(43));
    for (const x of take(42)) expect(x >= 0 && x < 1).toBe(true);
  });
});
