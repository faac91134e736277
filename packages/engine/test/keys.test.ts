import { describe, expect, it } from 'vitest';
import { createKeyGenerator, type KeyPattern, KeyPatternError, Rng, scrambleRank } from '../src/keys.js';

const PATTERNS: KeyPattern[] = ['uniform', 'sequential', 'zipf', 'gaussian'];
const RANDOM_PATTERNS: KeyPattern[] = ['uniform', 'zipf', 'gaussian'];

function draw(pattern: KeyPattern, keyspaceSize: number, seed: number, count: number, extra = {}): number[] {
  const gen = createKeyGenerator({ pattern, keyspaceSize, seed, ...extra });
  return Array.from({ length: count }, () => gen.nextKey());
}

function counts(keys: number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

describe('Rng', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const seq = (seed: number) => {
      const r = new Rng(seed);
      return Array.from({ length: 100 }, () => r.next());
    };
    expect(seq(42)).toEqual(seq(42));
    expect(seq(42)).not.toEqual(seq(43));
    expect(seq(0)).not.toEqual(seq(1));
  });

  it('keeps next/next53 in [0,1) and nextInt in [0,n) as integers', () => {
    const r = new Rng(7);
    for (let i = 0; i < 100_000; i++) {
      const f = r.next();
      const g = r.next53();
      expect(f >= 0 && f < 1 && g >= 0 && g < 1).toBe(true);
      for (const n of [1, 2, 3, 1000, 1e9, 2 ** 32]) {
        const k = r.nextInt(n);
        if (!(Number.isInteger(k) && k >= 0 && k < n)) throw new Error(`nextInt(${n}) gave ${k}`);
      }
    }
  });

  it('gives different streams for one seed', () => {
    const a = new Rng(5, 0);
    const b = new Rng(5, 1);
    expect(Array.from({ length: 20 }, () => a.u32())).not.toEqual(Array.from({ length: 20 }, () => b.u32()));
  });
});

describe('createKeyGenerator: common properties', () => {
  for (const pattern of PATTERNS) {
    for (const size of [1, 2, 777, 1000, 1e9, 2 ** 32]) {
      it(`${pattern}, keyspaceSize ${size}: deterministic integers in range`, () => {
        const a = draw(pattern, size, 123, 20_000);
        expect(a).toEqual(draw(pattern, size, 123, 20_000));
        for (const k of a) {
          if (!(Number.isInteger(k) && k >= 0 && k < size)) throw new Error(`${pattern} gave ${k}`);
        }
        if (size === 1) expect(new Set(a)).toEqual(new Set([0]));
      });
    }
  }

  for (const pattern of RANDOM_PATTERNS) {
    it(`${pattern}: different seeds and different streams give different sequences`, () => {
      const base = draw(pattern, 1e6, 1, 200);
      expect(draw(pattern, 1e6, 2, 200)).not.toEqual(base);
      expect(draw(pattern, 1e6, 1, 200, { stream: 1, streams: 2 })).not.toEqual(base);
      // Stream 0 is the seed alone, so a single worker's sequence does not depend on `streams`.
      expect(draw(pattern, 1e6, 1, 200, { stream: 0, streams: 4 })).toEqual(base);
    });
  }
});

describe('uniform', () => {
  it('fills 10 buckets evenly (chi-square)', () => {
    const n = 1_000_000;
    const draws = 100_000;
    const buckets = new Array<number>(10).fill(0);
    for (const k of draw('uniform', n, 99, draws)) buckets[Math.floor(k / (n / 10))]! += 1;
    const expected = draws / 10;
    const chi2 = buckets.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
    // 9 degrees of freedom: P(chi2 > 27.9) = 0.001.
    expect(chi2).toBeLessThan(27.9);
  });

  it('has no modulo bias on a size that does not divide 2^32', () => {
    // With u32 % n and n = 3 * 2^30, keys below 2^30 would get two residues each: half the draws.
    const n = 3 * 2 ** 30;
    const low = draw('uniform', n, 4, 300_000).filter((k) => k < 2 ** 30).length / 300_000;
    expect(Math.abs(low - 1 / 3)).toBeLessThan(0.01);
  });
});

describe('sequential', () => {
  it('walks 0..N-1 and wraps', () => {
    expect(draw('sequential', 4, 1, 10)).toEqual([0, 1, 2, 3, 0, 1, 2, 3, 0, 1]);
    expect(draw('sequential', 1, 1, 3)).toEqual([0, 0, 0]);
  });

  it('offsets each stream by its share of the key space', () => {
    expect(draw('sequential', 10, 1, 4, { stream: 0, streams: 3 })).toEqual([0, 1, 2, 3]);
    expect(draw('sequential', 10, 1, 4, { stream: 1, streams: 3 })).toEqual([3, 4, 5, 6]);
    expect(draw('sequential', 10, 1, 5, { stream: 2, streams: 3 })).toEqual([6, 7, 8, 9, 0]);
    expect(draw('sequential', 1e9, 1, 2, { stream: 3, streams: 4 })).toEqual([750_000_000, 750_000_001]);
  });
});

describe('zipf', () => {
  const harmonic = (n: number, s: number) => {
    let h = 0;
    for (let r = 1; r <= n; r++) h += 1 / r ** s;
    return h;
  };

  for (const s of [1, 0.99, 1.5]) {
    it(`matches the Zipf law for the hottest ranks (s = ${s})`, () => {
      const n = 1000;
      const draws = 200_000;
      const c = counts(draw('zipf', n, 2024, draws, { zipfExponent: s }));
      const [hottest, top] = [...c.entries()].reduce((best, e) => (e[1] > best[1] ? e : best));
      // The scramble moves rank 0 off key 0, and it is the most drawn key.
      expect(hottest).toBe(scrambleRank(0, n));
      expect(hottest).not.toBe(0);
      const p0 = 1 / harmonic(n, s);
      expect(Math.abs(top / draws / p0 - 1)).toBeLessThan(0.1);
      const second = c.get(scrambleRank(1, n)) ?? 0;
      expect(Math.abs(top / second / 2 ** s - 1)).toBeLessThan(0.1);
      const tenth = c.get(scrambleRank(9, n)) ?? 0;
      expect(Math.abs(top / tenth / 10 ** s - 1)).toBeLessThan(0.15);
    });
  }

  it('uses the default exponent 0.99', () => {
    expect(draw('zipf', 1e9, 8, 1000)).toEqual(draw('zipf', 1e9, 8, 1000, { zipfExponent: 0.99 }));
  });

  it('concentrates on few keys even in a 1e9 key space', () => {
    const c = counts(draw('zipf', 1e9, 3, 100_000));
    // p(rank 0) = 1/H(1e9, 0.99) ~ 0.048.
    expect(c.get(scrambleRank(0, 1e9))! / 100_000).toBeGreaterThan(0.04);
  });

  it('scrambles ranks with a permutation of [0, N)', () => {
    for (const n of [1, 2, 3, 777, 1000, 1024, 1025]) {
      const keys = new Set(Array.from({ length: n }, (_, r) => scrambleRank(r, n)));
      expect(keys.size).toBe(n);
      for (const k of keys) expect(k >= 0 && k < n).toBe(true);
    }
    const big = 2 ** 32;
    for (const r of [0, 1, big - 1]) expect(scrambleRank(r, big)).toBeLessThan(big);
  });
});

describe('gaussian', () => {
  it('has mean N/2 and standard deviation about N/6', () => {
    const n = 1e6;
    const keys = draw('gaussian', n, 11, 200_000);
    const mean = keys.reduce((a, b) => a + b, 0) / keys.length;
    const sd = Math.sqrt(keys.reduce((a, k) => a + (k - mean) ** 2, 0) / keys.length);
    expect(Math.abs(mean / (n / 2) - 1)).toBeLessThan(0.01);
    // Redrawing beyond ±3σ trims the spread by ~1.3%.
    expect(Math.abs(sd / (n / 6) - 1)).toBeLessThan(0.03);
    const inOneSd = keys.filter((k) => Math.abs(k - n / 2) < n / 6).length / keys.length;
    expect(inOneSd).toBeGreaterThan(0.67);
    expect(inOneSd).toBeLessThan(0.7);
  });
});

describe('invalid options', () => {
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ pattern: 'foo' }, /invalid key pattern "foo": expected uniform, sequential, zipf or gaussian/],
    [{ keyspaceSize: 0 }, /invalid keyspaceSize 0: expected an integer from 1/],
    [{ keyspaceSize: -5 }, /invalid keyspaceSize -5/],
    [{ keyspaceSize: 2.5 }, /invalid keyspaceSize 2\.5/],
    [{ keyspaceSize: Number.NaN }, /invalid keyspaceSize NaN/],
    [{ keyspaceSize: 2 ** 32 + 1 }, /invalid keyspaceSize 4294967297/],
    [{ pattern: 'zipf', zipfExponent: 0 }, /invalid zipfExponent 0: expected a finite number > 0/],
    [{ pattern: 'zipf', zipfExponent: -1 }, /invalid zipfExponent -1/],
    [{ pattern: 'zipf', zipfExponent: Number.NaN }, /invalid zipfExponent NaN/],
    [{ seed: 1.5 }, /invalid seed 1\.5/],
    [{ stream: 2, streams: 2 }, /invalid stream 2: expected an integer from 0 to 1/],
    [{ streams: 0 }, /invalid streams 0/],
  ];
  for (const [override, message] of bad) {
    it(`rejects ${JSON.stringify(override, (_, v) => (Number.isNaN(v) ? 'NaN' : v))}`, () => {
      const opts = { pattern: 'uniform', keyspaceSize: 100, seed: 1, ...override };
      let err: unknown;
      try {
        createKeyGenerator(opts as Parameters<typeof createKeyGenerator>[0]);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(KeyPatternError);
      expect((err as KeyPatternError).code).toBe('ERR_KEY_PATTERN');
      expect((err as Error).message).toMatch(message);
    });
  }

  it('validates the pattern even for a one-key space', () => {
    expect(() =>
      createKeyGenerator({ pattern: 'nope' as KeyPattern, keyspaceSize: 1, seed: 1 }),
    ).toThrowError(KeyPatternError);
  });
});
