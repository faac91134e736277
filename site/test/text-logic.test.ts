import { describe, expect, it } from 'vitest';
import { LONGEST_SHOWN, safeStrings, safeText, shortText } from '../src/lib/text/text.js';

describe('submitted text as the site shows it', () => {
  it('drops control and bidi characters, keeps tab and newline and right-to-left letters', () => {
    expect(safeText('redis 7.0.15\u202e on\u0000 \u0007x\u2066y\u2069')).toBe('redis 7.0.15 on xy');
    expect(safeText('line one\n\tline two שרת')).toBe('line one\n\tline two שרת');
  });
  it('cuts a string no result.v1 field could hold, so an old 1 MB CPU model does not weigh down a page', () => {
    const shown = safeText('x'.repeat(1 << 20));
    expect(Array.from(shown)).toHaveLength(LONGEST_SHOWN);
    expect(shown.endsWith('…')).toBe(true);
  });
  it('safeStrings cleans every string but the ones kept as stored', () => {
    const view = { machine: { cpuModel: 'A\u202eB' }, labels: ['c\u0000d'], n: 1, raw: 'r\u0007' };
    expect(safeStrings(view, new Set(['raw']))).toEqual({
      machine: { cpuModel: 'AB' },
      labels: ['cd'],
      n: 1,
      raw: 'r\u0007',
    });
  });
  it('shortText cuts at code points and gives the whole only when it cut', () => {
    expect(shortText('abc', 3)).toEqual({ text: 'abc', full: undefined });
    expect(shortText('😀😀😀😀', 3)).toEqual({ text: '😀😀…', full: '😀😀😀😀' });
  });
});
