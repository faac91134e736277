import { describe, expect, it } from 'vitest';
import { medianCiOrderStatistics } from '../src/index.js';

describe('medianCiOrderStatistics', () => {
  it('takes the order statistics of the binomial table: n = 10 gives the 2nd and 9th values', () => {
    const xs = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
    const ci = medianCiOrderStatistics(xs);
    expect([ci.low, ci.high]).toEqual([2, 9]);
    // 1 - 2 × P(X <= 1) for X ~ Binomial(10, 1/2) = 1 - 2 × 11/1024.
    expect(ci.coverage).toBeCloseTo(1 - 22 / 1024, 12);
  });

  it('covers at least 95% for large n, without underflow, in one sort', () => {
    const xs = Array.from({ length: 10_001 }, (_, i) => i);
    const ci = medianCiOrderStatistics(xs);
    expect(ci.coverage).toBeGreaterThanOrEqual(0.95);
    expect(ci.coverage).toBeLessThan(0.96);
    // About 1.96 × sqrt(n) / 2 = 98 ranks either side of the median (5000).
    expect(ci.low).toBeGreaterThan(4890);
    expect(5000 - ci.low).toBe(ci.high - 5000);
  });

  it('is the whole range, with the coverage it has, when too few values reach 95%', () => {
    expect(medianCiOrderStatistics([3, 1, 2, 5, 4])).toEqual({ low: 1, high: 5, coverage: 1 - 2 / 32 });
    expect(medianCiOrderStatistics([2, 1])).toEqual({ low: 1, high: 2, coverage: 0.5 });
    expect(() => medianCiOrderStatistics([])).toThrow(/empty input/);
    expect(() => medianCiOrderStatistics([1, Number.NaN])).toThrow(/non-finite/);
  });
});
