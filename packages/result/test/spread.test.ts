import { describe, expect, it } from 'vitest';
import {
  intervalDecimals,
  intervalText,
  MIN_VALUES_FOR_MEDIAN_CI,
  multiplicityNote,
  multiplicityOf,
  ratioText,
  spreadOf,
  spreadText,
} from '../src/index.js';

describe('spreadOf: an interval only where one reaches 95%', () => {
  it('three trials are a range: the smallest and largest, covering the median 75% of the time', () => {
    // The cell: trials 73,558 / 57,008 / 78,969 were called a "95% interval".
    const s = spreadOf([73_558, 57_008, 78_969]);
    expect(s).toEqual({ kind: 'range', low: 57_008, high: 78_969, n: 3, coverage: 0.75 });
    expect(spreadText(s, 'trial')).toBe('range of 3 trials');
  });

  it('from 6 trials on, the exact order-statistic interval of the median (at least 95%)', () => {
    expect(MIN_VALUES_FOR_MEDIAN_CI).toBe(6);
    const five = spreadOf([5, 1, 4, 2, 3]);
    expect(five.kind).toBe('range');
    expect(five.coverage).toBeCloseTo(1 - 2 / 32, 12); // 93.75%: short of 95%
    const six = spreadOf([6, 1, 5, 2, 4, 3]);
    expect(six).toMatchObject({ kind: 'median-ci', low: 1, high: 6, n: 6 });
    expect(six.coverage).toBeCloseTo(1 - 2 / 64, 12);
    const ten = spreadOf([10, 1, 9, 2, 8, 3, 7, 4, 6, 5]);
    expect(ten).toMatchObject({ kind: 'median-ci', low: 2, high: 9 });
    expect(spreadText(ten, 'trial')).toBe('95% interval of the median of 10 trials');
    expect(spreadText(spreadOf([1, 2, 3, 4, 5, 6, 7]), 'result')).toBe(
      '95% interval of the median of 7 results',
    );
  });

  it('one value has no spread', () => {
    const s = spreadOf([42]);
    expect(s).toEqual({ kind: 'single', low: 42, high: 42, n: 1, coverage: null });
    expect(spreadText(s, 'trial')).toBe('1 trial, no spread');
  });
});

describe('the digit rule: a bound that is not 1 never reads 1.000', () => {
  it('prints 3 decimals, and more where a bound would round to 1', () => {
    expect(intervalDecimals(0.92, 0.99)).toBe(3);
    expect(intervalText(1.047, 1.112)).toBe('1.047–1.112');
    expect(intervalText(1.0003, 1.0816)).toBe('1.0003–1.0816');
    expect(intervalText(0.98, 0.99996)).toBe('0.98000–0.99996');
    expect(intervalText(0.9996, 1.08)).toBe('0.9996–1.0800');
    // A bound of exactly 1 reads 1.000: it is 1.
    expect(intervalText(1, 1.2)).toBe('1.000–1.200');
    // As many as it takes, however close.
    expect(intervalText(1 + 1e-12, 1.1)).toBe('1.000000000001–1.100000000000');
    expect(intervalText(null, 1.2)).toBe('—–1.200');
  });

  it('every bound of an interval that excludes 1 reads on its side of 1', () => {
    for (let i = 1; i < 2000; i++) {
      const low = 1 + i * i * 1e-9;
      const text = intervalText(low, low + 0.05).split('–')[0]!;
      expect(text).not.toMatch(/^1\.0+$/);
    }
  });

  it("a ratio takes its interval's decimals", () => {
    expect(ratioText(1.0789, 1.047, 1.112)).toBe('1.079× (1.047–1.112)');
    expect(ratioText(1.04, 1.0003, 1.0816)).toBe('1.0400× (1.0003–1.0816)');
    expect(ratioText(0.95, null, null)).toBe('0.95×');
  });
});

describe('multiplicityNote', () => {
  it('says how many comparisons and how many could exclude 1 by chance, and one run where it is', () => {
    expect(multiplicityNote(472, true)).toBe(
      '472 comparisons on this page; at 95%, about 23.6 could exclude 1 by chance alone. They all come from one run on one machine: none repeats another.',
    );
    expect(multiplicityNote(40, false)).toBe(
      '40 comparisons on this page; at 95%, about 2 could exclude 1 by chance alone.',
    );
    expect(multiplicityNote(1, false)).toBe(
      '1 comparison on this page; at 95%, fewer than 1 could exclude 1 by chance alone.',
    );
  });

  it("multiplicityOf says 'one run' only when every comparison is one group's", () => {
    expect(multiplicityOf([{ groupId: 'g' }])).toBeNull();
    expect(multiplicityOf([{ groupId: 'g' }, { groupId: 'g' }])).toMatch(
      /^2 comparisons .* one run on one machine/,
    );
    expect(multiplicityOf([{ groupId: 'g' }, { groupId: null }])).not.toMatch(/one run/);
    expect(multiplicityOf([{ groupId: 'g' }, { groupId: 'h' }])).not.toMatch(/one run/);
  });
});
