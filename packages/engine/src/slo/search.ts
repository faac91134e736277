import type { SloObjective, SloSearch, SloStep } from '@redis-benchdb/result';
import type { CellOptions } from '../options.js';
import type { BenchSession, CellResult, RunCellHooks } from '../session.js';
import { canonicalObjectives } from './objectives.js';
import { type JudgedStep, judgeStep } from './step.js';

export { DEFAULT_SLO_BUDGET_SEC } from '../options.js';

/**
 * Replies each step aims to have beyond the strictest percentile. The count beyond a percentile is
 * about Poisson-distributed, so with 100 of them it is known to ±20% (95%): a p99 read from such a
 * step is the true p98.8 to p99.2, close enough that a pass or fail is the server's, not chance's.
 * p99 needs 10,000 replies, p99.9 100,000: a step lasts that long at its rate, within the bounds below.
 */
const TAIL_SAMPLES = 100;
export const MIN_STEP_SEC = 1;
/** Load before each step's measurement: connections open, the server's queues settle at the new rate. */
export const STEP_WARMUP_SEC = 0.5;
/** The closed-loop probe whose throughput the ramp starts from (a quarter of it). */
export const PROBE_SEC = 1;
/** Bisection stops when the bracket is this narrow, relative to its passing end. */
const RESOLUTION = 0.05;
/** Rounds of repeating the bracket's ends (each may move them and resume bisection). */
const CONFIRM_ROUNDS = 3;
/** The ramp steps down (by 4) this many times when its first rate already fails. */
const MAX_STEPS_DOWN = 3;
/**
 * Opening connections and worker threads, reading INFO before and after: per step, at least. A
 * busy host takes longer (over 1 s a step at a load average of 15), so the search goes by the
 * longest it has seen, in the probe or a step, to keep within its budget.
 */
const STEP_OVERHEAD_SEC = 0.3;

export interface SloSearchOptions {
  objectives: SloObjective[];
  /** @default DEFAULT_SLO_BUDGET_SEC */
  budgetSec: number;
}

export interface SloSearchHooks extends Pick<RunCellHooks, 'signal' | 'onMeasureStart' | 'onMeasureEnd'> {
  /** Each step as soon as it is judged: to print progress. */
  onStep?: (step: SloStep, index: number) => void;
}

/** The search as recorded, and the trial that stands for it: the answer's step (else the last one run). */
export interface SloSearchRun {
  search: SloSearch;
  trial: CellResult;
}

/** A step's measured phase: long enough for TAIL_SAMPLES beyond the strictest percentile, within bounds. */
function stepDurationSec(rate: number, strictestPercentile: number, budgetSec: number): number {
  const samples = TAIL_SAMPLES / (1 - strictestPercentile / 100);
  const longest = Math.max(MIN_STEP_SEC, budgetSec / 10);
  return Math.round(Math.min(longest, Math.max(MIN_STEP_SEC, samples / rate)) * 1000) / 1000;
}

/**
 * The highest open-loop rate at which every objective holds and the server keeps up: a closed-loop
 * probe, an exponential ramp from a quarter of its throughput (down instead, when that fails), then
 * bisection of [last pass, first fail] down to RESOLUTION, all within the budget.
 */
export async function runSloSearch(
  session: BenchSession,
  base: CellOptions,
  options: SloSearchOptions,
  hooks: SloSearchHooks = {},
): Promise<SloSearchRun> {
  const { objectives, budgetSec } = options;
  const strictest = objectives[objectives.length - 1]!.percentile;
  const cellHooks: RunCellHooks = {
    ...(hooks.signal ? { signal: hooks.signal } : {}),
    ...(hooks.onMeasureStart ? { onMeasureStart: hooks.onMeasureStart } : {}),
    ...(hooks.onMeasureEnd ? { onMeasureEnd: hooks.onMeasureEnd } : {}),
  };
  const open = { ...base, requests: undefined };
  const probeStart = performance.now();
  const probe = await session.runCell(
    { ...open, rateOpsPerSec: undefined, durationSec: PROBE_SEC },
    cellHooks,
  );
  const started = performance.now();
  // The probe's preload (a GET's keys, written once per session) is no step's overhead.
  let overheadSec = STEP_OVERHEAD_SEC;
  if (!base.preload) overheadSec = Math.max(overheadSec, (started - probeStart) / 1000 - PROBE_SEC);
  const state = new SearchState();

  const run = async (rate: number): Promise<JudgedStep | null> => {
    const durationSec = stepDurationSec(rate, strictest, budgetSec);
    const stepStart = performance.now();
    const elapsed = (stepStart - started) / 1000;
    if (elapsed + STEP_WARMUP_SEC + durationSec + overheadSec > budgetSec) return null;
    const r = await session.runCell(
      { ...open, rateOpsPerSec: rate, durationSec, warmupSec: STEP_WARMUP_SEC },
      cellHooks,
    );
    const tookSec = (performance.now() - stepStart) / 1000;
    overheadSec = Math.max(overheadSec, tookSec - STEP_WARMUP_SEC - durationSec);
    const judged = judgeStep(r, rate, durationSec, STEP_WARMUP_SEC, objectives);
    state.record(judged, r);
    hooks.onStep?.(judged.step, state.steps.length - 1);
    // Ctrl-C cuts the step short: that is no fault of the server's.
    if (hooks.signal?.aborted) {
      state.end('interrupted', 'the run was interrupted');
      return null;
    }
    return judged;
  };

  if (probe.incomplete || probe.completed === 0) {
    state.end('server-disturbed', `the closed-loop probe failed: ${probe.error ?? 'no replies'}`);
  } else await searchRates(state, run, niceRate(probe.opsPerSec / 4), hooks.signal);
  const search = state.finish(objectives, budgetSec, (performance.now() - started) / 1000, probe);
  const shown = state.passResult ?? state.lastResult ?? probe;
  return {
    search,
    trial: {
      ...shown,
      workload: {
        ...shown.workload,
        slo: canonicalObjectives(objectives),
        rateOpsPerSec: undefined,
        requests: undefined,
      },
      sloSearch: search,
    },
  };
}

/** Runs one step at an offered rate and records it in the state; null when the budget or the run ended. */
export type Step = (rate: number) => Promise<JudgedStep | null>;

/** The search's course over any steps: the ramp, bisection, then the repeated ends. */
export async function searchRates(
  state: SearchState,
  run: Step,
  start: number,
  signal?: AbortSignal,
): Promise<void> {
  await ramp(state, run, start, signal);
  if (state.outcome === null) await bisect(state, run, signal);
  if (state.outcome === null) await confirm(state, run, signal);
}

/** Double from the start until a rate fails; when the first fails, divide by 4 until one passes. */
async function ramp(state: SearchState, run: Step, start: number, signal?: AbortSignal): Promise<void> {
  let rate = start;
  let down = 0;
  for (;;) {
    if (signal?.aborted) return state.end('interrupted', 'the run was interrupted');
    const j = await run(rate);
    if (j === null || state.judge(j)) return;
    if (j.step.pass) {
      if (state.failOpsPerSec !== null) return; // stepped down to a pass: bracketed
      rate = niceRate(rate * 2);
    } else if (state.passOpsPerSec !== null) {
      return;
    } else if (down < MAX_STEPS_DOWN && rate > 1) {
      down++;
      rate = niceRate(rate / 4);
    } else {
      return state.end(
        'objective-never-met',
        `the objectives failed even at ${fmt(rate)} ops/s offered (${j.step.failures.join('; ')})`,
      );
    }
  }
}

/**
 * Halves the gap between the answer and the rate above it: the upper end, or the lowest rate between
 * them that passed and failed in turn. Below such a rate nothing has been tried, so the answer can
 * still rise towards it; stopping at the gap instead left a 2x bracket when a rate at the server's
 * capacity went both ways (CI: 3,020 ops/s passed, then failed, and the answer fell back to 1,510
 * against a capacity of about 2,980).
 */
async function bisect(state: SearchState, run: Step, signal?: AbortSignal): Promise<void> {
  for (;;) {
    const pass = state.passOpsPerSec;
    if (pass === null || state.failOpsPerSec === null) return;
    const above = Math.min(state.failOpsPerSec, ...state.mixedAbove(pass));
    if (above - pass <= RESOLUTION * pass) return;
    const mid = niceRate((pass + above) / 2);
    if (mid <= pass || mid >= above) return;
    if (signal?.aborted) return state.end('interrupted', 'the run was interrupted');
    const j = await run(mid);
    if (j === null || state.judge(j)) return;
  }
}

/**
 * Runs the bracket's two ends again: one step's pass or fail near the answer can be chance (on a VM,
 * a few millisecond stalls more or fewer in its second; docs/BENCHMARKS.md). The answer must pass
 * every time and the upper end fail every time. A repeat that disagrees widens the bracket over that
 * rate (bracketOf): the answer gives way to the next pass below, the upper end to the next failure
 * above, and the new ends are run again in the next round. Bisection resumes between the answer and
 * the lowest such rate, never across it.
 */
async function confirm(state: SearchState, run: Step, signal?: AbortSignal): Promise<void> {
  for (let round = 0; round < CONFIRM_ROUNDS; round++) {
    if (
      state.passOpsPerSec !== null &&
      state.failOpsPerSec === null &&
      state.mixedAbove(state.passOpsPerSec)
    ) {
      // The upper end passed on its repeat, and no rate above the answer has failed every time: look
      // further up for one that does (seen on a busy host: 768 ops/s failed at a p50 of 140 ms, then
      // passed, and the search had ended "unbounded" with every failure forgotten).
      if (signal?.aborted) return state.end('interrupted', 'the run was interrupted');
      const j = await run(niceRate(state.highestRun() * 2));
      if (j === null || state.judge(j)) return;
    }
    const { passOpsPerSec: pass, failOpsPerSec: fail } = state;
    if (pass === null || fail === null) return;
    const ends = [pass, fail].filter((rate) => state.timesRun(rate) < 2);
    if (ends.length === 0) return;
    for (const rate of ends) {
      if (signal?.aborted) return state.end('interrupted', 'the run was interrupted');
      const j = await run(rate);
      if (j === null || state.judge(j)) return;
    }
    await bisect(state, run, signal);
    if (state.outcome !== null) return;
  }
}

/** How often one offered rate passed and failed. */
export interface RateTally {
  pass: number;
  fail: number;
}

/**
 * The bracket a search's steps support. The answer: the highest rate that passed every time it ran,
 * below every rate that ever failed. The upper end: the lowest rate above the answer that failed
 * every time. Rates that went both ways lie between them, so the bracket spans the noise.
 */
export function bracketOf(tally: ReadonlyMap<number, RateTally>): {
  passOpsPerSec: number | null;
  failOpsPerSec: number | null;
} {
  let lowestFail = Number.POSITIVE_INFINITY;
  for (const [x, c] of tally) if (c.fail > 0 && x < lowestFail) lowestFail = x;
  let pass: number | null = null;
  for (const [x, c] of tally) if (c.fail === 0 && x < lowestFail && (pass === null || x > pass)) pass = x;
  let fail: number | null = null;
  for (const [x, c] of tally) if (c.pass === 0 && x > (pass ?? 0) && (fail === null || x < fail)) fail = x;
  return { passOpsPerSec: pass, failOpsPerSec: fail };
}

/** What the search has learnt so far. */
export class SearchState {
  readonly steps: SloStep[] = [];
  passOpsPerSec: number | null = null;
  failOpsPerSec: number | null = null;
  passResult: CellResult | null = null;
  lastResult: CellResult | null = null;
  outcome: SloSearch['outcome'] | null = null;
  reason: string | null = null;

  /** Each rate run: how often it passed and failed, and its latest passing step. */
  private readonly tally = new Map<number, RateTally & { passResult: CellResult | null }>();

  record(j: JudgedStep, r: CellResult): void {
    this.steps.push(j.step);
    this.lastResult = r;
    const rate = j.step.offeredOpsPerSec;
    const t = this.tally.get(rate) ?? { pass: 0, fail: 0, passResult: null };
    if (j.step.pass) {
      t.pass++;
      t.passResult = r;
    } else t.fail++;
    this.tally.set(rate, t);
    const b = bracketOf(this.tally);
    this.passOpsPerSec = b.passOpsPerSec;
    this.failOpsPerSec = b.failOpsPerSec;
    this.passResult = b.passOpsPerSec === null ? null : this.tally.get(b.passOpsPerSec)!.passResult;
  }

  timesRun(rate: number): number {
    const t = this.tally.get(rate);
    return t ? t.pass + t.fail : 0;
  }

  /** Rates above this one that passed and failed: the noise around the upper end. */
  mixedAbove(rate: number): number[] {
    return [...this.tally]
      .filter(([x, c]) => x > rate && c.pass > 0 && c.fail > 0)
      .map(([x]) => x)
      .sort((a, b) => a - b);
  }

  highestRun(): number {
    return Math.max(0, ...this.tally.keys());
  }

  /** Ends the search when the step says it cannot go on; true if it did. */
  judge(j: JudgedStep): boolean {
    if (j.disturbed) this.end('server-disturbed', `at ${fmt(j.step.offeredOpsPerSec)} ops/s: ${j.disturbed}`);
    else if (j.clientLate) {
      this.end(
        'client-bound',
        `at ${fmt(j.step.offeredOpsPerSec)} ops/s offered ${j.step.failures.join('; ')}: the response time counts from the intended send, so the client's own lateness (its timers and this host's wake-ups) is in every figure, and at this share it, not the server, decides the objective. Set a looser objective (say 'p99<=5ms'), or run the client on a quieter host with its own CPUs (--client-cpus)`,
      );
    } else if (j.clientLimited) {
      const s = j.step.saturation;
      this.end(
        'client-bound',
        `at ${fmt(j.step.offeredOpsPerSec)} ops/s offered the client achieved ${fmt(j.step.achievedOpsPerSec)} while the server's main thread was busy ${s.serverMainThreadCpuShare ?? 'an unknown share'} of the time (client event loop ${s.clientEventLoopUtilization.join(', ')}): the client, not the server, is the limit. Add --threads, or run the client on another machine`,
      );
    }
    return this.outcome !== null;
  }

  end(outcome: SloSearch['outcome'], reason: string): void {
    this.outcome = outcome;
    this.reason = reason;
  }

  finish(objectives: SloObjective[], budgetSec: number, elapsedSec: number, probe: CellResult): SloSearch {
    const bracketed = this.passOpsPerSec !== null && this.failOpsPerSec !== null;
    if (this.outcome === null) {
      const mixed = this.passOpsPerSec === null ? [] : this.mixedAbove(this.passOpsPerSec);
      if (bracketed) this.outcome = 'bracketed';
      else if (mixed.length > 0)
        // Failures were seen above the answer, but no rate failed every time it ran: not "unbounded".
        this.end(
          'server-disturbed',
          `every rate up to ${fmt(this.passOpsPerSec!)} ops/s passed every time it ran, but above it ${mixed.map(fmt).join(', ')} ops/s passed and failed in turn, and no higher rate failed every time before the ${budgetSec} s budget ran out: the host's noise, not the server's capacity, decided those steps. Run on a quieter host, or raise --slo-budget`,
        );
      else if (this.passOpsPerSec !== null)
        this.end(
          'unbounded',
          `every rate up to ${fmt(this.passOpsPerSec)} ops/s passed and the ${budgetSec} s budget ran out before one failed (raise --slo-budget)`,
        );
      else
        this.end(
          'objective-never-met',
          `no step passed within the ${budgetSec} s budget (raise --slo-budget)`,
        );
    }
    return {
      objectives,
      budgetSec,
      elapsedSec: Math.round(elapsedSec * 1000) / 1000,
      probeOpsPerSec: probe.completed > 0 ? probe.opsPerSec : null,
      steps: this.steps,
      answerOpsPerSec: this.outcome === 'bracketed' ? this.passOpsPerSec : null,
      bracket: { passOpsPerSec: this.passOpsPerSec, failOpsPerSec: this.failOpsPerSec },
      outcome: this.outcome!,
      reason: this.outcome === 'bracketed' ? null : this.reason,
    };
  }
}

/** A rate a reader can repeat: three significant digits, at least 1 op/s. */
function niceRate(x: number): number {
  if (x < 1) return 1;
  const digits = Math.max(0, Math.floor(Math.log10(x)) - 2);
  const f = 10 ** digits;
  return Math.round(x / f) * f;
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
