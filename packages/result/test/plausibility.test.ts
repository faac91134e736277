import { NOW, suiteRun, withPipeline } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import {
  checkNumbers,
  checkPlausibility,
  decodeHistogram,
  PLAUSIBILITY_LIMITS,
  type ResultV1,
} from '../src/index.js';

const paths = (r: ResultV1) => checkPlausibility(r, { now: NOW }).map((p) => p.path);

describe('checkNumbers', () => {
  it('finds non-finite and negative numbers by path', () => {
    expect(checkNumbers({ a: [1, Number.POSITIVE_INFINITY], b: { c: -1, d: Number.NaN } })).toEqual([
      { code: 'IMPLAUSIBLE', path: '/a/1', message: '/a/1: Infinity is not a finite number' },
      {
        code: 'IMPLAUSIBLE',
        path: '/b/c',
        message: '/b/c: -1 is negative (counts, rates and times cannot be)',
      },
      { code: 'IMPLAUSIBLE', path: '/b/d', message: '/b/d: NaN is not a finite number' },
    ]);
  });

  it('lets crossCheck.observed be negative, as the format allows', () => {
    expect(checkNumbers({ crossCheck: { observed: -3 } })).toEqual([]);
    expect(checkNumbers({ crossCheck: { observed: Number.NEGATIVE_INFINITY } })).toHaveLength(1);
  });

  it('escapes keys as JSON Pointer does', () => {
    expect(checkNumbers({ 'a/b~c': -1 })[0]?.path).toBe('/a~1b~0c');
  });
});

describe('checkPlausibility', () => {
  it('passes the example results', () => {
    expect(checkPlausibility(suiteRun(), { now: NOW })).toEqual([]);
    const deep = suiteRun();
    withPipeline(deep, 16);
    expect(checkPlausibility(deep, { now: NOW })).toEqual([]);
  });

  it("bounds ops/s by Little law: connections × pipeline / the histogram's mean latency", () => {
    const r = suiteRun();
    const c = r.cells[0]!; // 50 connections, pipeline 1, mean 441.061 µs: at most 113,363 ops/s
    const bound = (50 * 1) / (decodeHistogram(c.histogram).mean * 1e-6);
    expect(Math.round(bound)).toBe(113_363);
    c.opsPerSec = { median: bound * 1.9, ci95Low: bound * 1.9, ci95High: bound * 1.9, cv: null };
    expect(paths(r)).toEqual([]);
    c.opsPerSec = { median: bound * 2.1, ci95Low: bound * 2.1, ci95High: bound * 2.1, cv: null };
    expect(paths(r)).toEqual(['/cells/0/opsPerSec/median']);
    // A deeper pipeline carries more.
    c.workload.pipelineDepth = 16;
    expect(paths(r)).toEqual([]);
  });

  it('checks each trial against its own latency', () => {
    const r = suiteRun();
    r.cells[0]!.trials[2]!.opsPerSec = 10_000_000;
    expect(paths(r)).toEqual(['/cells/0/trials/2/opsPerSec']);
  });

  it('refuses more than 50 million ops/s whatever the latency says', () => {
    const r = suiteRun();
    const c = r.cells[0]!;
    c.workload.connections = 10_000;
    c.workload.pipelineDepth = 1000;
    c.opsPerSec = { median: 60e6, ci95Low: 60e6, ci95High: 60e6, cv: null };
    const problems = checkPlausibility(r, { now: NOW });
    expect(problems.map((p) => p.path)).toEqual(['/cells/0/opsPerSec/median']);
    expect(problems[0]?.message).toContain(`limit ${PLAUSIBILITY_LIMITS.maxOpsPerSec}`);
  });

  // Issue 11 row 3: minUs 0 (or any stated figure) used to switch Little's law off.
  it('lets no stated figure switch Little law off: it reads the histogram', () => {
    const r = suiteRun();
    const t = r.cells[0]!.trials[0]!; // 50 connections, pipeline 1, mean 438.5 µs
    t.latencyUs = { ...t.latencyUs, minUs: 0 };
    t.opsPerSec = 40_000_000;
    expect(paths(r)).toEqual(['/cells/0/trials/0/latencyUs/minUs', '/cells/0/trials/0/opsPerSec']);
    t.latencyUs = { ...t.latencyUs, count: 0, minUs: 0 };
    expect(paths(r)).toEqual(['/cells/0/trials/0/histogram', '/cells/0/trials/0/opsPerSec']);
  });

  it('wants every figure of a latency summary within a bucket of its histogram', () => {
    const r = suiteRun();
    const l = r.cells[0]!.latencyUs; // p50 434, p9999 2665 (buckets of 1 µs below 2048, then 2 µs)
    l.p50Us = 435; // one bucket off: the same histogram, summarised another way
    l.p9999Us = 2667;
    expect(paths(r)).toEqual([]);
    l.p50Us = 436;
    l.p9999Us = 2668;
    l.meanUs = 300;
    const problems = checkPlausibility(r, { now: NOW });
    expect(problems.map((p) => p.path)).toEqual([
      '/cells/0/latencyUs/meanUs',
      '/cells/0/latencyUs/p50Us',
      '/cells/0/latencyUs/p9999Us',
    ]);
    expect(problems[1]?.message).toBe(
      '/cells/0/latencyUs/p50Us: 436 but its histogram (histogram) says 434 (±1 µs at that value): the summary is not of this histogram',
    );
  });

  it('wants the response-time summary of an open-loop cell to agree with its histogram', () => {
    const r = suiteRun();
    const c = r.cells[0]!;
    c.responseTimeUs = { ...c.latencyUs };
    c.responseHistogram = c.histogram;
    expect(paths(r)).toEqual([]);
    c.responseTimeUs.p99Us = 670;
    expect(paths(r)).toEqual(['/cells/0/responseTimeUs/p99Us']);
    c.responseHistogram = null;
    expect(paths(r)).toEqual(['/cells/0/responseHistogram']);
  });

  it('wants completed <= requested for the cell and each trial', () => {
    const r = suiteRun();
    r.cells[1]!.requested = 10;
    r.cells[1]!.trials[1]!.requested = 10;
    expect(paths(r)).toEqual(['/cells/1/completed', '/cells/1/trials/1/completed']);
  });

  it('wants percentiles that do not decrease', () => {
    const r = suiteRun();
    r.cells[0]!.latencyUs.maxUs = 1;
    r.cells[1]!.trials[0]!.latencyUs.p90Us = 1;
    // Each also disagrees with its histogram.
    expect(paths(r)).toEqual([
      '/cells/0/latencyUs/maxUs',
      '/cells/0/latencyUs/maxUs',
      '/cells/1/trials/0/latencyUs/p90Us',
      '/cells/1/trials/0/latencyUs/p90Us',
    ]);
  });

  it('wants the median inside its confidence interval', () => {
    const r = suiteRun();
    r.cells[0]!.opsPerSec.ci95Low = 120_000;
    r.cells[0]!.opsPerSec.ci95High = 130_000;
    expect(paths(r)).toEqual(['/cells/0/opsPerSec/median']);
  });

  it('wants the histogram to hold latencyUs.count values, and to decode', () => {
    const r = suiteRun();
    r.cells[0]!.latencyUs.count = 5;
    r.cells[1]!.histogram = 'AAAAAAAA';
    const problems = checkPlausibility(r, { now: NOW });
    // A histogram that cannot be read is the one reason given: its cell's other figures were not checked.
    expect(problems.map((p) => p.message)).toEqual([
      '/cells/1/histogram (cell 1 "GET"): not a decodable HdrHistogram: it has 6 bytes, fewer than its 8-byte header',
    ]);
    expect(problems.map((p) => p.code)).toEqual(['INVALID_HISTOGRAM']);
    r.cells[1] = suiteRun().cells[1]!;
    expect(checkPlausibility(r, { now: NOW }).map((p) => p.message)).toEqual([
      '/cells/0/histogram: holds 670459 values but latencyUs.count is 5: the summary is not of this histogram',
    ]);
  });

  it('wants sane timestamps', () => {
    const r = suiteRun();
    r.startedAt = '2019-12-31T23:59:59Z';
    expect(paths(r)).toEqual(['/startedAt']);
    r.startedAt = '2025-03-07T12:00:00Z'; // within a day of NOW, but after finishedAt
    expect(paths(r)).toEqual(['/finishedAt']);
    r.startedAt = r.finishedAt;
    expect(paths(r)).toEqual([]);
    expect(
      checkPlausibility(suiteRun(), { now: new Date('2025-03-02T00:00:00Z') }).map((p) => p.path),
    ).toEqual(['/startedAt', '/finishedAt']);
  });

  it('reports the non-finite number and nothing that follows from it', () => {
    const r = suiteRun();
    r.cells[0]!.latencyUs.p50Us = Number.POSITIVE_INFINITY;
    expect(paths(r)).toEqual(['/cells/0/latencyUs/p50Us']);
  });
});
