import type { SloSearch } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { canonicalObjectiveText, sloFigureText, sloLabel, sloView } from '../src/lib/model/slo.js';

// How a search cell's figure is worded on every page: the answer, its bracket, or why there is none.

const step = (offered: number, p99: number, pass: boolean) => ({
  offeredOpsPerSec: offered,
  achievedOpsPerSec: offered,
  percentilesUs: [p99],
  responseTimeUs: { p50Us: 100, p99Us: p99 },
  pass,
});

const search = (answer: number | null, pass: number | null, fail: number | null, outcome = 'bracketed') =>
  ({
    objectives: [{ percentile: 99, maxUs: 1000 }],
    steps: [step(pass ?? 100, 500, pass !== null), step(fail ?? 200, 3000, false)],
    answerOpsPerSec: answer,
    bracket: { passOpsPerSec: pass, failOpsPerSec: fail },
    outcome,
    reason: outcome === 'bracketed' ? null : 'the objectives failed even at 355 ops/s offered',
  }) as unknown as SloSearch;

describe('the SLO figure', () => {
  it('states the answer and its bracket', () => {
    const v = sloView([search(84_000, 84_000, 88_000)])!;
    expect(sloFigureText(v)).toBe('max 84,000 ops/s at p99 ≤ 1 ms (bracket 84,000–88,000)');
    expect(v.searches[0]!.steps.map((s) => s.objectiveUs)).toEqual([500, 3000]);
  });

  it('takes the median of several searches, and says how many of them found one', () => {
    const v = sloView([
      search(80_000, 80_000, 84_000),
      search(null, null, 400, 'objective-never-met'),
      search(90_000, 90_000, 94_000),
    ])!;
    expect(v.answerOpsPerSec).toBe(85_000);
    expect(sloFigureText(v)).toBe(
      'max 85,000 ops/s at p99 ≤ 1 ms (bracket 80,000–84,000, 90,000–94,000, median of 2 of 3 searches)',
    );
  });

  it('says why there is no answer', () => {
    const v = sloView([search(null, null, 355, 'objective-never-met')])!;
    expect(sloFigureText(v)).toBe(
      'no answer for max ops/s at p99 ≤ 1 ms: objective-never-met (the objectives failed even at 355 ops/s offered)',
    );
  });

  it('is null for a cell that is not a search', () => {
    expect(sloView([undefined, undefined])).toBeNull();
  });

  it('reads the runner label and the canonical workload form', () => {
    expect(sloLabel('GET p99<=1ms')).toEqual({ cell: 'GET', objective: 'p99 ≤ 1 ms' });
    expect(sloLabel('SET 4KiB k1000 p99<=1ms,p99.9<=500us')).toEqual({
      cell: 'SET 4KiB k1000',
      objective: 'p99 ≤ 1 ms, p99.9 ≤ 500 µs',
    });
    expect(sloLabel('GET P16')).toBeNull();
    expect(canonicalObjectiveText('p99<=1000us,p99.9<=5000us')).toBe('p99 ≤ 1 ms, p99.9 ≤ 5 ms');
  });
});
