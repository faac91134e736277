import { decodeHistogram } from '@redis-benchdb/result';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BenchSession,
  type CellOptions,
  DEFAULT_CELL_OPTIONS,
  DEFAULT_TARGET,
  parseObjectives,
  runSloSearch,
  SloSyntaxError,
  startServer,
} from '../dist/index.js';
import { FixedRateServer } from './helpers/fixed-rate-server.js';

// The search for the highest rate at a latency objective (slo/). Against a server whose capacity is
// known (a mock draining one queue at a fixed rate: no real server can be held to one), the answer
// must bracket that capacity; against a real redis-server, a search must finish in its budget and
// record its steps.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

async function open(port: number): Promise<BenchSession> {
  const s = await BenchSession.open({ ...DEFAULT_TARGET, host: '127.0.0.1', port });
  cleanups.push(() => s.close());
  return s;
}

describe('parseObjectives', () => {
  it('reads any percentile, several objectives, us and ms, strictest last', () => {
    expect(parseObjectives('p99.9<=5ms, p99<=1ms')).toEqual([
      { percentile: 99, maxUs: 1000 },
      { percentile: 99.9, maxUs: 5000 },
    ]);
    expect(parseObjectives('p50<=250us')).toEqual([{ percentile: 50, maxUs: 250 }]);
    expect(parseObjectives('P99.99 <= 0.5ms')).toEqual([{ percentile: 99.99, maxUs: 500 }]);
  });

  it.each([
    ['p99<1ms', 'cannot read "p99<1ms"'],
    ['p99<=1', 'cannot read "p99<=1"'],
    ['99<=1ms', 'cannot read "99<=1ms"'],
    ['p100<=1ms', 'p100 is not a percentile between 0 and 100'],
    ['p99<=1ms,p99<=2ms', 'p99 is given twice'],
    ['p99<=1ms,', 'an empty objective'],
    ['p99<=0.0001ms', 'outside 1us'],
  ])('refuses %s, naming the syntax', (text, why) => {
    let err: unknown;
    try {
      parseObjectives(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SloSyntaxError);
    expect((err as Error).message).toContain(why);
    expect((err as Error).message).toContain('expected objectives like p99<=1ms or p99<=1ms,p99.9<=5ms');
  });
});

describe('runSloSearch', () => {
  it('brackets the capacity of a server that answers at a fixed rate', async () => {
    const capacity = 4_000;
    const server = await FixedRateServer.start(capacity);
    cleanups.push(() => server.stop());
    const session = await open(server.port);
    const cell: CellOptions = {
      ...DEFAULT_CELL_OPTIONS,
      test: 'PING_MBULK',
      connections: 8,
      // 128 in flight: room to catch up after the client's thread is held up on a busy machine.
      pipelineDepth: 16,
      pipelineMode: 'window',
    };
    const seen: number[] = [];
    // The median within 50 ms: below capacity it holds even on a busy machine (whose scheduling
    // stretches the tail, not the median), so the answer is set by the service rate: above it the
    // queue grows, replies fall behind the schedule and the median climbs.
    const { search, trial } = await runSloSearch(
      session,
      cell,
      { objectives: parseObjectives('p50<=50ms'), budgetSec: 40 },
      { onStep: (s) => seen.push(s.offeredOpsPerSec) },
    );
    expect(search.outcome, search.reason ?? '').toBe('bracketed');
    const { passOpsPerSec: pass, failOpsPerSec: fail } = search.bracket;
    const trace = search.steps
      .map((s) => `${s.offeredOpsPerSec}: ${s.completed} in ${s.durationSec} s, ${s.failures.join('; ')}`)
      .join('\n');
    expect(search.answerOpsPerSec).toBe(pass);
    // The capacity lies in the bracket, give or take what the window lets queue within a step
    // (128 requests, 3% of a second at this rate). No answer above it; below it only by what a
    // busy machine takes from the mock (at a load average of 10 on 2 cores it served 3,500/s).
    expect(pass!, trace).toBeLessThanOrEqual(capacity * 1.05);
    expect(fail!, trace).toBeGreaterThanOrEqual(capacity * 0.8);
    // Both ends were run again and held: the answer passed every time, the upper end failed every
    // time. Only rates that went both ways (a busy machine's chance) may widen the bracket.
    const runs = (rate: number) => search.steps.filter((s) => s.offeredOpsPerSec === rate);
    expect(runs(pass!).length, trace).toBeGreaterThanOrEqual(2);
    expect(runs(fail!).length, trace).toBeGreaterThanOrEqual(2);
    expect(
      runs(pass!).every((s) => s.pass),
      trace,
    ).toBe(true);
    expect(
      runs(fail!).every((s) => !s.pass),
      trace,
    ).toBe(true);
    const mixed = search.steps.filter((s) => runs(s.offeredOpsPerSec).some((o) => o.pass !== s.pass));
    if (mixed.length === 0) expect(fail! / pass!, trace).toBeLessThanOrEqual(1.06);
    for (const s of mixed) {
      expect(s.offeredOpsPerSec, trace).toBeGreaterThan(pass!);
      expect(s.offeredOpsPerSec, trace).toBeLessThan(fail!);
    }
    // Every step was reported as it ended and recorded with its own histogram.
    expect(search.steps.map((s) => s.offeredOpsPerSec)).toEqual(seen);
    for (const s of search.steps) {
      expect(decodeHistogram(s.responseHistogram).totalCount).toBe(s.completed);
      expect(s.pass).toBe(s.failures.length === 0);
    }
    // Every step offered more than the mock's rate failed.
    for (const s of search.steps) if (s.offeredOpsPerSec > capacity * 1.05) expect(s.pass, trace).toBe(false);
    expect(search.elapsedSec).toBeLessThanOrEqual(40);
    // The trial standing for the search is the answer's step, recorded as an SLO cell.
    expect(trial.workload.slo).toBe('p50<=50000us');
    expect(trial.workload.rateOpsPerSec).toBeUndefined();
    expect(trial.sloSearch).toBe(search);
    // The latest of the answer's passing steps (it ran at least twice).
    const answerStep = search.steps.filter((s) => s.pass && s.offeredOpsPerSec === pass).at(-1)!;
    expect(trial.completed).toBe(answerStep.completed);
  });

  it('says so when the objective cannot be met at any rate', async () => {
    const server = await FixedRateServer.start(2_000);
    cleanups.push(() => server.stop());
    const session = await open(server.port);
    // Replies leave on a 1 ms tick: a p50 of 1 us is out of reach at any rate.
    const { search } = await runSloSearch(
      session,
      { ...DEFAULT_CELL_OPTIONS, test: 'PING_MBULK', connections: 4 },
      { objectives: parseObjectives('p50<=1us'), budgetSec: 20 },
    );
    expect(search.outcome).toBe('objective-never-met');
    expect(search.answerOpsPerSec).toBeNull();
    expect(search.bracket.passOpsPerSec).toBeNull();
    expect(search.reason).toMatch(/objectives failed even at [\d,]+ ops\/s offered \(p50 /);
  });

  it('completes against a real redis-server and records its steps', async () => {
    const redis = await startServer();
    cleanups.push(() => redis.stop());
    expect(redis.port).not.toBe(6379);
    const session = await open(redis.port);
    const { search, trial } = await runSloSearch(
      session,
      { ...DEFAULT_CELL_OPTIONS, test: 'SET', connections: 10, keyspaceSize: 1000 },
      { objectives: parseObjectives('p99<=5ms,p99.9<=20ms'), budgetSec: 20 },
    );
    expect(search.probeOpsPerSec).toBeGreaterThan(0);
    expect(search.steps.length).toBeGreaterThanOrEqual(1);
    expect(search.elapsedSec).toBeLessThanOrEqual(20);
    for (const s of search.steps) {
      expect(s.percentilesUs).toHaveLength(2);
      expect(s.responseTimeUs.count).toBe(s.completed);
      // Every measured request's own send lateness, recorded beside its response time.
      expect(s.sendLatenessUs?.count).toBe(s.completed);
      expect(s.saturation.serverMainThreadCpuShare).not.toBeNull();
    }
    // The ramp doubles until a step fails; the outcome names why when it did not bracket.
    expect(search.outcome === 'bracketed').toBe(search.reason === null);
    expect(trial.workload.slo).toBe('p99<=5000us,p99.9<=20000us');
    await session.cleanup();
  });
});
