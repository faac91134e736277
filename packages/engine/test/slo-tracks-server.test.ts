import { skippedOnBusyHost } from '@redis-benchdb/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BenchSession,
  type CellOptions,
  DEFAULT_CELL_OPTIONS,
  DEFAULT_SLO_BUDGET_SEC,
  DEFAULT_TARGET,
  parseObjectives,
  runSloSearch,
  startServer,
} from '../dist/index.js';
import { withCpuPressure } from './helpers/cpu-pressure.js';

// Issue 17's "done when": the answer tracks the server. One real redis-server is searched twice with
// the same objective, each time on a command of known cost: a Lua loop run by EVAL, 4 times longer
// the second time. The server's own account of that cost (INFO commandstats, usec_per_call) says how
// much slower it became; the answer must fall by about as much. A per-command cost is deterministic
// work, so on a busy machine both searches are slowed alike, which CPU shared with a hog is not.

const LOOP = 'local x = 0 for i = 1, tonumber(ARGV[1]) do x = x + i end return 1';
/** About 100 us of Lua per call here (5 us per 1,000 iterations, measured with redis-cli). */
const CHEAP_ITERATIONS = 20_000;
const SLOWDOWN = 4;
// The median within 20 ms, not a tail: on a shared 2-core host the server is descheduled for tens of
// ms now and then (measured here at a load average of 5-8: p99 above 50 ms at 6% of the server's
// capacity), which stretches the tail at any rate but not the median. Below capacity the median stays
// near one call's cost; above it the queue grows by the excess every second and the median passes
// 20 ms within a step. So the answer is set by the rate the server keeps up with.
const OBJECTIVES = parseObjectives('p50<=20ms');

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

async function search(session: BenchSession, iterations: number) {
  const { value, host } = await withCpuPressure(() => searchOnce(session, iterations));
  return { ...value, host };
}

async function searchOnce(session: BenchSession, iterations: number) {
  const cell: CellOptions = {
    ...DEFAULT_CELL_OPTIONS,
    test: 'CUSTOM',
    command: ['EVAL', LOOP, '0', String(iterations)],
    connections: 50,
  };
  await session.control.redis.config('RESETSTAT');
  const { search } = await runSloSearch(session, cell, {
    objectives: OBJECTIVES,
    budgetSec: DEFAULT_SLO_BUDGET_SEC,
  });
  const stats = await session.control.info('commandstats');
  const usecPerCall = Number(/usec_per_call=([\d.]+)/.exec(stats.cmdstat_eval ?? '')?.[1]);
  return { search, usecPerCall };
}

const trace = (s: Awaited<ReturnType<typeof search>>['search']) =>
  `${s.outcome} ${s.reason ?? ''}\n${s.steps
    .map((x) => `${x.offeredOpsPerSec}: ${x.completed} in ${x.durationSec} s, ${x.failures.join('; ')}`)
    .join('\n')}`;

describe('the answer tracks the server', () => {
  it(`falls about ${SLOWDOWN}x when each command costs the server ${SLOWDOWN}x the work`, async ({
    task,
  }) => {
    const redis = await startServer();
    cleanups.push(() => redis.stop());
    const session = await BenchSession.open({ ...DEFAULT_TARGET, host: '127.0.0.1', port: redis.port });
    cleanups.push(() => session.close());

    // Two searches of each, interleaved, and the higher answer of each kept: other work on a shared
    // host can only take CPU from the server and lower an answer (at a load average of 13 one search
    // of the dear command failed at 45% of its capacity, the median then 73 ms), so the higher of two
    // is the nearer to the server's own, and interleaving spreads a slow minute over both kinds.
    const runs: Awaited<ReturnType<typeof search>>[][] = [[], []];
    for (let i = 0; i < 2; i++)
      for (const [k, iterations] of [CHEAP_ITERATIONS, CHEAP_ITERATIONS * SLOWDOWN].entries())
        runs[k]!.push(await search(session, iterations));
    for (const r of runs.flat()) {
      expect(r.search.elapsedSec).toBeLessThanOrEqual(DEFAULT_SLO_BUDGET_SEC);
      // On a quiet host every search brackets within the default budget: each answer is a measured
      // boundary, not a bound. On a busy one (two CPU hogs on two cores, CPU pressure 0.9-1.0) the rates
      // near capacity can pass and fail in turn as the server is preempted; the search must then say
      // so (server-disturbed, naming the host's noise), never claim a bound it did not find.
      // Every step of a search ran and was counted, busy host or not.
      for (const step of r.search.steps) expect(step.completed, trace(r.search)).toBeGreaterThan(0);
      if (r.search.outcome !== 'bracketed' && r.host.busy) {
        expect(r.search.outcome, trace(r.search)).toBe('server-disturbed');
        expect(r.search.reason, trace(r.search)).toMatch(/the host's noise, not the server's capacity/);
        console.log(
          `a search on a busy host (${r.host.figure}) gave no answer, as it should say: ${r.search.reason}`,
        );
      } else expect(r.search.outcome, trace(r.search)).toBe('bracketed');
    }
    // The server's own figure for how much dearer a call became, which holds on a busy host too (the
    // same work per call, slowed alike): below 4x, because the fixed part of each call (parsing, the
    // script's lookup, the reply) does not grow with the loop. Each kind's least disturbed search.
    const leastCost = (rs: Awaited<ReturnType<typeof search>>[]) => Math.min(...rs.map((r) => r.usecPerCall));
    expect(leastCost(runs[1]!) / leastCost(runs[0]!)).toBeGreaterThan(2.5);
    const answered = runs.map((rs) => rs.filter((r) => r.search.outcome === 'bracketed'));
    if (answered.some((rs) => rs.length === 0))
      return skippedOnBusyHost(
        { task },
        `the answer falls as the cost rises: a kind had no bracketed answer (${runs
          .flat()
          .map((r) => `${r.search.outcome}, ${r.host.figure}`)
          .join('; ')})`,
      );
    const best = (rs: Awaited<ReturnType<typeof search>>[]) =>
      rs.reduce((a, b) => (b.search.answerOpsPerSec! > a.search.answerOpsPerSec! ? b : a));
    const cheap = best(answered[0]!);
    const dear = best(answered[1]!);

    // The ratio of the searches whose answers are compared.
    const costRatio = dear.usecPerCall / cheap.usecPerCall;
    expect(costRatio).toBeGreaterThan(2.5);
    const answerRatio = cheap.search.answerOpsPerSec! / dear.search.answerOpsPerSec!;
    const why = `answers ${cheap.search.answerOpsPerSec} and ${dear.search.answerOpsPerSec} ops/s, ${cheap.usecPerCall} and ${dear.usecPerCall} us per call\n${trace(cheap.search)}\n${trace(dear.search)}`;
    // 0.6 to 1.5 times the cost ratio: the bracket is 5% wide, and on a shared 2-core host the
    // server's share of a CPU differs between searches half a minute apart (three runs of one search
    // each at a load average of 6-7 gave 0.85, 1.13 and one in between). A search blind to the server would give
    // the same answer twice (ratio 1, under half of the 3.8 expected), as would one set by the
    // client, whose work per call is the same in both.
    expect(answerRatio, why).toBeGreaterThan(costRatio * 0.6);
    expect(answerRatio, why).toBeLessThan(costRatio * 1.5);
  });
});
