import { describe, expect, it } from 'vitest';
import {
  betweenRunNoise,
  DEFAULT_BETWEEN_RUN_CV,
  MIN_BETWEEN_RUN_CV,
  MIN_REPEATED_RESULTS,
  noiseBand,
  noiseFromMoments,
} from '../src/noise.js';
import { pairedRatio } from '../src/stats.js';
import {
  comparePair,
  noVerdictWarnings,
  pairedVerdict,
  unpairedVerdict,
  type VerdictCell,
} from '../src/verdict.js';

const DEFAULT = betweenRunNoise([]);

/** A cell at `median` ops/s with a ±`halfCi` 95% interval of 6 trials, unflagged, default noise unless given. */
function cell(median: number, halfCi = 0.005, noise = DEFAULT, warnings: string[] = []): VerdictCell {
  const spread = '95% interval of the median of 6 trials';
  return { median, low: median * (1 - halfCi), high: median * (1 + halfCi), spread, warnings, noise };
}

describe('between-run noise', () => {
  it('uses the default below the minimum of repeated results, and says how many there were', () => {
    expect(MIN_REPEATED_RESULTS).toBe(3);
    expect(betweenRunNoise([100, 110])).toEqual({
      cv: DEFAULT_BETWEEN_RUN_CV,
      results: 2,
      source: 'default',
    });
  });

  it('measures the CV of the repeated results from the minimum on', () => {
    // mean 100, sample sd 10: CV 10%.
    expect(betweenRunNoise([90, 100, 110])).toEqual({ cv: 0.1, results: 3, source: 'measured' });
    expect(noiseFromMoments(3, 100, 10)).toEqual({ cv: 0.1, results: 3, source: 'measured' });
  });

  it('never takes a measured CV below the floor: three runs that agree by chance are not a steady machine', () => {
    expect(betweenRunNoise([100, 100, 100]).cv).toBe(MIN_BETWEEN_RUN_CV);
  });

  it('the band is the normal quantile times √2 CV for two defaults, and Student t where measured', () => {
    expect(noiseBand(DEFAULT, DEFAULT)).toBeCloseTo(1.96 * Math.SQRT2 * DEFAULT_BETWEEN_RUN_CV, 3);
    const three = betweenRunNoise([90, 100, 110]);
    // t at 2 degrees of freedom (4.30): few results, a wide band.
    expect(noiseBand(three, three)).toBeCloseTo(4.3027 * Math.SQRT2 * 0.1, 3);
  });
});

describe('unpaired verdicts (results that did not run together)', () => {
  it('A/A: intervals apart but the difference inside the default between-run noise is no verdict, saying why', () => {
    // What the old rule (intervals apart) called "faster": 3% up, intervals ±0.5%.
    const v = unpairedVerdict(cell(100_000), cell(103_000));
    expect(v.outcome).toBe('no verdict');
    expect(v.rule).toBe('within-noise');
    expect(v.text).toBe(
      'no verdict: difference +3.0% within between-run noise −39.3% to +64.7% (default CV 18.0%: 0 repeated results, 3 needed)',
    );
  });

  it('faster and slower beyond both the intervals and the noise band', () => {
    // Two results on default noise: the band is ±64.7% (a CV of 18% on each side).
    expect(unpairedVerdict(cell(100_000), cell(150_000))).toMatchObject({ outcome: 'no verdict' });
    const faster = unpairedVerdict(cell(100_000), cell(200_000));
    expect(faster).toMatchObject({ outcome: 'faster', rule: 'beyond-noise' });
    expect(faster.text).toMatch(
      /^faster: difference \+100\.0% beyond between-run noise −39\.3% to \+64\.7% .*; the two 95% intervals of the median of 6 trials apart$/,
    );
    expect(unpairedVerdict(cell(200_000), cell(100_000))).toMatchObject({ outcome: 'slower' });
  });

  it('measured noise narrows or widens the band, and the text names both sides', () => {
    const steady = noiseFromMoments(10, 100, 1); // CV 1%, 10 results
    const v = unpairedVerdict(cell(100_000, 0.005, steady), cell(105_000, 0.005, steady));
    expect(v.outcome).toBe('faster');
    expect(v.text).toContain('(CV 1.0% measured over 10 repeated results)');
    const mixed = unpairedVerdict(cell(100_000, 0.005, steady), cell(105_000, 0.005, DEFAULT));
    expect(mixed.outcome).toBe('no verdict');
    expect(mixed.text).toContain(
      'baseline: CV 1.0% measured over 10 repeated results; this result: default CV 18.0%',
    );
  });

  it('overlapping intervals are no verdict, however far apart the medians', () => {
    const v = unpairedVerdict(cell(100_000, 0.3), cell(150_000, 0.3));
    expect(v).toMatchObject({ outcome: 'no verdict', rule: 'intervals-overlap' });
  });

  it('a range of trials is called a range, never a 95% interval, and judged as the stricter spread', () => {
    const range = (m: number): VerdictCell => ({ ...cell(m, 0.3), spread: 'range of 3 trials' });
    const v = unpairedVerdict(range(100_000), range(150_000));
    expect(v.text).toBe("no verdict: the two ranges of 3 trials overlap (each run's own noise)");
    expect(v.text).not.toContain('95%');
    const mixed = unpairedVerdict(range(100_000), cell(150_000, 0.3));
    expect(mixed.text).toBe(
      "no verdict: the two spreads (baseline: range of 3 trials; this: 95% interval of the median of 6 trials) overlap (each run's own noise)",
    );
  });

  it('single trials (no interval) are no verdict', () => {
    const one = (m: number): VerdictCell => ({ ...cell(m), low: m, high: m });
    expect(unpairedVerdict(one(100), one(200))).toMatchObject({ rule: 'no-interval' });
    expect(unpairedVerdict({ ...cell(100), low: null }, cell(200)).rule).toBe('no-interval');
  });

  it('a flagged cell on either side is no verdict, naming the warning and the side', () => {
    const busy = unpairedVerdict(cell(100_000), cell(200_000, 0.005, DEFAULT, ['BUSY_HOST']));
    expect(busy).toEqual({
      outcome: 'no verdict',
      rule: 'flagged',
      text: "no verdict: BUSY_HOST in this result's cell",
    });
    const both = unpairedVerdict(
      cell(100_000, 0.005, DEFAULT, ['DRIFT', 'UNSTABLE']),
      cell(200_000, 0.005, DEFAULT, ['ERRORS']),
    );
    expect(both.text).toBe(
      "no verdict: ERRORS in this result's cell; DRIFT, UNSTABLE in the baseline's cell",
    );
  });
});

describe('paired verdicts (an interleaved group)', () => {
  it('faster when the paired interval excludes 1, even where the medians say nothing', () => {
    const load = [1, 0.6, 0.7, 1, 0.95];
    const p = pairedRatio(
      load.map((f) => 100_000 * f),
      load.map((f) => 105_000 * f),
    );
    const v = pairedVerdict(p, [], []);
    expect(v).toMatchObject({ outcome: 'faster', rule: 'paired-excludes-1' });
    expect(v.text).toBe('faster: paired interval 1.050–1.050 excludes 1 (5 rounds)');
  });

  it('no verdict when it holds 1, with one round, or on a flagged cell', () => {
    const p = pairedRatio([100, 120, 90, 110], [103, 115, 92, 108]);
    expect(pairedVerdict(p, [], []).text).toMatch(
      /^no verdict: paired interval 0\.\d\d\d–1\.\d\d\d holds 1 \(4 rounds\)$/,
    );
    expect(pairedVerdict(pairedRatio([100], [150]), [], []).rule).toBe('paired-one-round');
    expect(pairedVerdict(null, [], []).rule).toBe('paired-one-round');
    const big = pairedRatio([100, 100, 100], [200, 201, 199]);
    expect(pairedVerdict(big, [], ['CPU_STEAL']).text).toBe("no verdict: CPU_STEAL in this result's cell");
  });

  it('prints a bound that excludes 1 with the digits it needs never to read 1.000', () => {
    // The case: 1.0003–1.0816 printed "1.00–1.08" beside "faster".
    const p = { n: 10, ratio: 1.04, ci95Low: 1.0003, ci95High: 1.0816 };
    expect(pairedVerdict(p, [], []).text).toBe(
      'faster: paired interval 1.0003–1.0816 excludes 1 (10 rounds)',
    );
    const slower = { n: 10, ratio: 0.95, ci95Low: 0.92, ci95High: 0.99996 };
    expect(pairedVerdict(slower, [], []).text).toBe(
      'slower: paired interval 0.92000–0.99996 excludes 1 (10 rounds)',
    );
  });
});

describe('comparePair: the one comparison every view makes', () => {
  const paired = { n: 10, ratio: 0.95, ci95Low: 0.92, ci95High: 0.987, groupId: 'g1' };

  it('takes the paired evidence where a group holds both, whatever the medians and spreads say', () => {
    // The explorer case: medians 0.95x with overlapping spreads, the group's paired 0.95x slower.
    const base = { ...cell(100_000, 0.3), spread: 'range of 3 trials' };
    const other = { ...cell(95_000, 0.3), spread: 'range of 3 trials' };
    expect(comparePair(base, other, null)).toMatchObject({
      basis: 'unpaired',
      ratio: 0.95,
      low: null,
      verdict: { outcome: 'no verdict', rule: 'intervals-overlap' },
    });
    expect(comparePair(base, other, paired)).toEqual({
      basis: 'paired',
      ratio: 0.95,
      low: 0.92,
      high: 0.987,
      rounds: 10,
      groupId: 'g1',
      verdict: {
        outcome: 'slower',
        rule: 'paired-excludes-1',
        text: 'slower: paired interval 0.920–0.987 excludes 1 (10 rounds)',
      },
    });
  });

  it('keeps the no-verdict flags on the paired rule, and gives no ratio over a zero median', () => {
    const flagged = comparePair(cell(100, 0.005, DEFAULT, ['UNSTABLE']), cell(95), paired);
    expect(flagged?.verdict.rule).toBe('flagged');
    expect(comparePair(cell(0), cell(95), null)).toBeNull();
  });
});

describe('which warnings keep a cell from a verdict', () => {
  const warnings = [
    { code: 'BUSY_HOST', cell: 'GET' },
    { code: 'CPU_STEAL', cell: 'SET' },
    { code: 'SAME_HOST', cell: null },
    { code: 'STALL', cell: 'GET' },
  ];

  it("a cell's own interference warnings, its unstable and client-bound flags; not other cells' nor other codes", () => {
    expect(noVerdictWarnings(warnings, { label: 'GET', unstable: true, clientBound: true })).toEqual([
      'BUSY_HOST',
      'UNSTABLE',
      'CLIENT_BOUND',
    ]);
    expect(noVerdictWarnings(warnings, { label: 'INCR', unstable: false, clientBound: null })).toEqual([]);
  });

  it('a cell whose other work could not be measured (steal read, other CPU unknown) gets no verdict: BUSY_HOST', () => {
    const cell = { label: 'INCR', unstable: false, clientBound: false };
    const unknown = { otherCpuFraction: null, stealFraction: 0 };
    expect(noVerdictWarnings([], { ...cell, interference: unknown })).toEqual(['BUSY_HOST']);
    // Off Linux nothing was read: no figure, no claim either way.
    expect(
      noVerdictWarnings([], { ...cell, interference: { otherCpuFraction: null, stealFraction: null } }),
    ).toEqual([]);
    expect(
      noVerdictWarnings([], { ...cell, interference: { otherCpuFraction: 0.01, stealFraction: 0 } }),
    ).toEqual([]);
  });

  it('DRIFT is said of the whole run: every cell', () => {
    const drift = [...warnings, { code: 'DRIFT', cell: null }];
    expect(noVerdictWarnings(drift, { label: 'INCR', unstable: false, clientBound: false })).toEqual([
      'DRIFT',
    ]);
  });
});
