import { describe, expect, it } from 'vitest';
import { bracketOf, type RateTally } from '../dist/index.js';

// A search's bracket is meant as the uncertainty of its answer, so a rate counts as passing only if
// it passed every time it ran, and as the upper end only if it failed every time. The figures are
// the three searches of GET at p99<=10 ms on a 2-vCPU VM (docs/BENCHMARKS.md), where one step's pass
// or fail near capacity was chance.

const tally = (runs: Array<[rate: number, pass: boolean]>) => {
  const m = new Map<number, RateTally>();
  for (const [rate, pass] of runs) {
    const t = m.get(rate) ?? { pass: 0, fail: 0 };
    if (pass) t.pass++;
    else t.fail++;
    m.set(rate, t);
  }
  return m;
};

// The third search's steps, run once each: ramp 18,200 and 36,400, then bisection.
const SEARCH: Array<[number, boolean]> = [
  [18_200, true],
  [36_400, false],
  [27_300, false],
  [22_800, true],
  [25_100, true],
  [26_200, false],
];

describe('bracketOf', () => {
  it('a ramp and bisection run once each: the highest pass and the lowest fail above it', () => {
    expect(bracketOf(tally(SEARCH))).toEqual({ passOpsPerSec: 25_100, failOpsPerSec: 26_200 });
  });

  it('an answer that fails when repeated gives way to the highest rate below it that never failed', () => {
    expect(bracketOf(tally([...SEARCH, [25_100, false]]))).toEqual({
      passOpsPerSec: 22_800,
      failOpsPerSec: 26_200,
    });
  });

  it('an upper end that passes when repeated gives way to the next rate above that always failed', () => {
    expect(bracketOf(tally([...SEARCH, [26_200, true]]))).toEqual({
      passOpsPerSec: 25_100,
      failOpsPerSec: 27_300,
    });
  });

  it('no pass: no answer, and the lowest failure is the upper end; no failure: no upper end', () => {
    expect(
      bracketOf(
        tally([
          [4_000, false],
          [1_000, false],
        ]),
      ),
    ).toEqual({ passOpsPerSec: null, failOpsPerSec: 1_000 });
    expect(
      bracketOf(
        tally([
          [1_000, true],
          [2_000, true],
        ]),
      ),
    ).toEqual({ passOpsPerSec: 2_000, failOpsPerSec: null });
  });
});
