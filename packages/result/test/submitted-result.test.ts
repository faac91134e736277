import { NOW, suiteRun } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_MS, checkSubmittedResult, type ResultV1 } from '../src/index.js';

/** The codes and paths of the first rule a result breaks. */
const outcome = (r: ResultV1, now = NOW) =>
  checkSubmittedResult(r, { now }).map((p) => ({ code: p.code, path: p.path }));

describe('checkSubmittedResult: each rule by its code', () => {
  it('passes the example result', () => {
    expect(checkSubmittedResult(suiteRun(), { now: NOW })).toEqual([]);
  });

  it('FINISHED_IN_FUTURE past the clock-skew allowance, not within it', () => {
    const r = suiteRun();
    const finished = Date.parse(r.finishedAt);
    expect(outcome(r, new Date(finished - CLOCK_SKEW_MS + 1000))).toEqual([]);
    expect(outcome(r, new Date(finished - CLOCK_SKEW_MS - 60_000))).toEqual([
      { code: 'FINISHED_IN_FUTURE', path: '/finishedAt' },
    ]);
  });

  it('IDENTITY_TEXT at the field that names a kind in lookalike letters', () => {
    const r = suiteRun();
    r.environment.client.cpu.model = 'AMD ЕРYC';
    expect(outcome(r)).toEqual([{ code: 'IDENTITY_TEXT', path: '/environment/client/cpu/model' }]);
  });

  it('IMPLAUSIBLE, and INVALID_HISTOGRAM ahead of it when a histogram cannot be read', () => {
    const r = suiteRun();
    r.cells[0]!.trialCount += 1;
    expect(outcome(r)).toEqual([{ code: 'IMPLAUSIBLE', path: '/cells/0/trialCount' }]);
    r.cells[1]!.histogram = 'AAAA';
    expect(outcome(r)).toEqual([{ code: 'INVALID_HISTOGRAM', path: '/cells/1/histogram' }]);
  });

  it('WRONG_REPLIES at the cell whose replies were wrong', () => {
    const r = suiteRun();
    r.warnings.push({ code: 'WRONG_REPLIES', cell: r.cells[1]!.label, message: 'GET answered integers.' });
    expect(outcome(r)).toEqual([{ code: 'WRONG_REPLIES', path: '/cells/1' }]);
  });
});
