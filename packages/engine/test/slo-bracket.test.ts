import type { SloStep } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import {
  bracketOf,
  type CellResult,
  type RateTally,
  SearchState,
  type SloStepRunner,
  searchRates,
} from '../dist/index.js';

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

// The search's course (ramp, bisection, repeated ends) over scripted steps: each rate's outcomes in
// the order they are asked for. No server: what is tested is what the search does with the steps.
function scripted(outcomes: Record<number, boolean[]>, capacity = 600) {
  const state = new SearchState();
  const asked: number[] = [];
  const run: SloStepRunner = async (rate) => {
    asked.push(rate);
    const left = outcomes[rate];
    // A rate the script does not name: passes below the server's capacity, fails above it.
    const pass = left?.length ? left.shift()! : rate < capacity;
    const step = { offeredOpsPerSec: rate, pass, failures: pass ? [] : ['p50 140 ms > 20 ms'] } as SloStep;
    const judged = { step, clientLimited: false, disturbed: null, clientLate: null };
    state.record(judged, {} as CellResult);
    return judged;
  };
  return { state, run, asked };
}

/** The steps of a loaded CI run (slo-tracks-server) up to its answer, 552 ops/s: each rate's outcomes in turn. */
const loadedRun = (): Record<number, boolean[]> => ({
  192: [true],
  384: [true],
  768: [false, true],
  576: [false, true],
  480: [true],
  528: [true],
});

describe('searchRates', () => {
  const finish = (state: SearchState) =>
    state.finish([{ percentile: 50, maxUs: 20_000 }], 60, 30, { completed: 1, opsPerSec: 800 } as CellResult);

  it('an upper end that passes when repeated: the search looks further up for one that always fails', async () => {
    // The steps of a loaded CI run (slo-tracks-server): 768 failed at a p50 of 140 ms, 576 failed,
    // 552 passed twice, then 576 and 768 each passed on their repeat. The search had ended
    // "unbounded, every rate up to 552 passed", with both failures forgotten.
    const { state, run, asked } = scripted({ ...loadedRun(), 552: [true, true], 1540: [false, false] });
    await searchRates(state, run, 192);
    const s = finish(state);
    expect(asked.slice(0, 10)).toEqual([192, 384, 768, 576, 480, 528, 552, 552, 576, 768]);
    expect(asked).toContain(1540);
    expect(s.outcome).toBe('bracketed');
    expect(s.bracket).toEqual({ passOpsPerSec: 552, failOpsPerSec: 1540 });
  });

  it('when no rate above the answer fails every time, it says the host decided, not "unbounded"', async () => {
    const { state, run } = scripted({
      ...loadedRun(),
      552: [true, true, true],
      1540: [false, true],
      3080: [false, true],
      6160: [false, true],
    });
    await searchRates(state, run, 192);
    const s = finish(state);
    expect(s.outcome).toBe('server-disturbed');
    expect(s.reason).toMatch(/every rate up to 552 ops\/s passed every time it ran, but above it 576, 768/);
    expect(s.reason).toMatch(/the host's noise, not the server's capacity, decided those steps/);
  });

  it('a rate at capacity that passes, then fails: bisection goes on below it, to the resolution', async () => {
    // The dear search of a CI run (slo-tracks-server), a capacity of about 2,980 ops/s: 3,020 passed,
    // every rate bisected above it failed, and its repeat failed. The search stopped there and
    // answered 1,510 (bracket 1,510-3,120), the last rate below that never failed.
    const { state, run, asked } = scripted(
      { 377: [true], 754: [true], 1510: [true, true], 3020: [true, false] },
      2980,
    );
    await searchRates(state, run, 377);
    const s = finish(state);
    expect(asked.slice(0, 12)).toEqual([
      377, 754, 1510, 3020, 6040, 4530, 3780, 3400, 3210, 3120, 3020, 3120,
    ]);
    expect(s.outcome).toBe('bracketed');
    // Within 5% of the rate that went both ways, and never above a rate that ever failed.
    expect(s.answerOpsPerSec).toBeGreaterThanOrEqual(3020 * 0.95);
    expect(s.answerOpsPerSec).toBeLessThan(2980);
    expect(s.bracket.failOpsPerSec).toBe(3120);
    // The answer passed every time it ran, at least twice.
    expect(asked.filter((r) => r === s.answerOpsPerSec).length).toBeGreaterThanOrEqual(2);
  });

  it('a clean server: ramp, bisection, both ends repeated once, bracketed', async () => {
    const { state, run, asked } = scripted({});
    await searchRates(state, run, 100);
    const s = finish(state);
    expect(s.outcome).toBe('bracketed');
    expect(s.bracket.passOpsPerSec).toBeLessThan(600);
    expect(s.bracket.failOpsPerSec).toBeGreaterThanOrEqual(600);
    expect(asked.filter((r) => r === s.bracket.passOpsPerSec)).toHaveLength(2);
    expect(asked.filter((r) => r === s.bracket.failOpsPerSec)).toHaveLength(2);
  });
});
