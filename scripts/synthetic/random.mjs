// A seeded PRNG and the few draws the generator needs: the same --seed gives the same documents
// (and so the same content ids), whichever worker happens to generate a result.

/** mulberry32: tiny, fast, good enough for test data (not for anything secret). */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** An integer in [lo, hi]. */
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    /** Pick from [value, weight] pairs. */
    weighted: (pairs) => {
      let r = next() * pairs.reduce((s, [, w]) => s + w, 0);
      for (const [v, w] of pairs) if ((r -= w) < 0) return v;
      return pairs[pairs.length - 1][0];
    },
    /** Standard normal (Box-Muller). */
    normal: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()),
    hex: (digits) => {
      let s = '';
      for (let i = 0; i < digits; i++) s += Math.floor(next() * 16).toString(16);
      return s;
    },
  };
}

/** A per-item seed: result i of seed s draws the same numbers in any worker. */
export function seedFor(seed, ...parts) {
  let h = seed >>> 0;
  for (const p of parts) h = Math.imul(h ^ (p + 0x9e3779b9), 0x85ebca6b) >>> 0;
  return (h ^ (h >>> 13)) >>> 0;
}
