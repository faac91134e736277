/**
 * Key-choice patterns: which key number in [0, keyspaceSize) the next request touches.
 * Called once per request on the hot path, so no allocation and O(1) work per draw at any size.
 */

export type KeyPattern = 'uniform' | 'sequential' | 'zipf' | 'gaussian';

const PATTERNS: readonly string[] = ['uniform', 'sequential', 'zipf', 'gaussian'];
const TWO_32 = 4294967296;
// Key numbers go through 32-bit integer math (Rng.nextInt, the zipf scramble); 2^32 keys is far
// beyond what one Redis holds in memory anyway.
const MAX_KEYSPACE = TWO_32;

export class KeyPatternError extends Error {
  readonly code = 'ERR_KEY_PATTERN';
  override name = 'KeyPatternError';
}

/**
 * sfc32 seeded through splitmix32: passes PractRand, needs only 32-bit ops that V8 keeps in
 * registers, and unlike Math.random() it can be replayed from a seed.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;
  /** `stream` gives workers sharing one seed distinct sequences; stream 0 is the seed alone. */
  constructor(seed: number, stream = 0) {
    // splitmix32 turns a small or patterned seed (0, 1, 42) into well-spread state words.
    const s = (seed ^ fmix32(stream)) | 0;
    this.a = fmix32((s + 0x9e3779b9) | 0) | 0;
    this.b = fmix32((s + 0x3c6ef372) | 0) | 0;
    this.c = fmix32((s + 0xdaa66d2b) | 0) | 0;
    // Early sfc32 outputs still correlate with the seed; the authors discard a few.
    for (let i = 0; i < 12; i++) this.u32();
  }
  /** Uniform integer in [0, 2^32). */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (((this.c << 21) | (this.c >>> 11)) + t) | 0;
    return t >>> 0;
  }
  /** Uniform float in [0, 1) with 32 random bits. */
  next(): number {
    return this.u32() / TWO_32;
  }
  /** Uniform float in [0, 1) with 53 random bits, for inversion where 2^-32 steps would show. */
  next53(): number {
    return ((this.u32() >>> 5) * 67108864 + (this.u32() >>> 6)) / 9007199254740992;
  }
  /**
   * Uniform integer in [0, n) for an integer 1 <= n <= 2^32. floor(next() * n) would give some
   * keys 5 chances in 2^32 and others 4 when n ~ 1e9 (25% skew); rejecting the incomplete top
   * block makes every residue equally likely. The limit (the largest multiple of n <= 2^32) and
   * the remainder are taken by divisions, not `%`: these values are often above 2^31, where V8's
   * `%` calls fmod (a profile of the P16 path had the uniform draw at 2% of the client's CPU).
   * Both are exact: the quotients' fractional parts are at least 1/n, far above their rounding.
   */
  nextInt(n: number): number {
    const limit = Math.floor(TWO_32 / n) * n;
    let u = this.u32();
    while (u >= limit) u = this.u32();
    return u - Math.floor(u / n) * n;
  }
}

function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A fixed permutation of [0, n) mapping a zipf rank to its key. Why: with rank = key the hot keys
 * are 0, 1, 2..., the first a sequential preload wrote, so they sit together in allocator memory
 * and dict buckets, and any range-based placement (key ranges per shard, hash tags from the key
 * number) puts every hot key on one node or slot range. YCSB's ScrambledZipfian does the same.
 * Odd multiplies and xorshifts are bijections of [0, 2^k); cycle-walking (re-apply until inside
 * [0, n)) restricts that to a bijection of [0, n), in < 2 rounds on average since 2^k < 2n.
 */
export function scrambleRank(rank: number, n: number): number {
  const k = 32 - Math.clz32(n - 1);
  const mask = 2 ** k - 1;
  const shift = (k + 1) >>> 1 || 1;
  let x = rank;
  do {
    x = ((Math.imul(x, 0x9e3779b1) + 0x7f4a7c15) & mask) >>> 0;
    x = (x ^ (x >>> shift)) >>> 0;
    x = (Math.imul(x, 0x85ebca6b) & mask) >>> 0;
    x = (x ^ (x >>> shift)) >>> 0;
  } while (x >= n);
  return x;
}

export interface KeyGenerator {
  nextKey(): number;
}

export interface KeyGeneratorOptions {
  pattern: KeyPattern;
  keyspaceSize: number;
  seed: number;
  /** Zipf exponent s > 0; default 0.99 (YCSB's). */
  zipfExponent?: number;
  /** This generator's index among `streams` generators sharing the key space (one per worker). */
  stream?: number;
  streams?: number;
}

export function createKeyGenerator(opts: KeyGeneratorOptions): KeyGenerator {
  const { pattern, keyspaceSize: n, seed, zipfExponent = 0.99, stream = 0, streams = 1 } = opts;
  const fail = (msg: string): never => {
    throw new KeyPatternError(msg);
  };
  if (!PATTERNS.includes(pattern)) {
    fail(`invalid key pattern ${JSON.stringify(pattern)}: expected uniform, sequential, zipf or gaussian`);
  }
  if (!Number.isInteger(n) || n < 1 || n > MAX_KEYSPACE) {
    fail(`invalid keyspaceSize ${n}: expected an integer from 1 to ${MAX_KEYSPACE}`);
  }
  if (!Number.isInteger(seed)) fail(`invalid seed ${seed}: expected an integer`);
  if (!Number.isInteger(streams) || streams < 1) fail(`invalid streams ${streams}: expected an integer >= 1`);
  if (!Number.isInteger(stream) || stream < 0 || stream >= streams) {
    fail(`invalid stream ${stream}: expected an integer from 0 to ${streams - 1}`);
  }
  if (pattern === 'zipf' && !(Number.isFinite(zipfExponent) && zipfExponent > 0)) {
    fail(`invalid zipfExponent ${zipfExponent}: expected a finite number > 0`);
  }
  if (n === 1) return { nextKey: () => 0 };
  const rng = new Rng(seed, stream);
  switch (pattern) {
    case 'uniform':
      return { nextKey: () => rng.nextInt(n) };
    case 'sequential': {
      // Offset starts so that workers spread over the key space instead of all writing key 0,
      // then key 1... in lockstep (which would measure contention on one key, not the server).
      let i = Math.floor((stream * n) / streams);
      return {
        nextKey: () => {
          const k = i;
          i = k + 1 === n ? 0 : k + 1;
          return k;
        },
      };
    }
    case 'zipf':
      return new Zipf(rng, n, zipfExponent);
    default:
      return gaussian(rng, n);
  }
}

/**
 * Rejection-inversion (Hörmann & Derflinger 1996), ported from Apache Commons RNG's
 * RejectionInversionZipfSampler: O(1) per draw and no table, so a 1e9-key space costs nothing.
 * Commons' form of H(x) = (x^(1-s) - 1)/(1-s) has a limit at s = 1, so every s > 0 works.
 */
class Zipf implements KeyGenerator {
  private readonly hX1: number;
  private readonly hN: number;
  private readonly cut: number;
  constructor(
    private readonly rng: Rng,
    private readonly n: number,
    private readonly s: number,
  ) {
    this.hX1 = this.hIntegral(1.5) - 1;
    this.hN = this.hIntegral(n + 0.5);
    this.cut = 2 - this.hIntegralInverse(this.hIntegral(2.5) - this.h(2));
  }
  nextKey(): number {
    for (;;) {
      // 53 bits: with 32, ranks in a 1e9 tail (p < 2^-32 each) would be drawn in coarse steps.
      const u = this.hN + this.rng.next53() * (this.hX1 - this.hN);
      const x = this.hIntegralInverse(u);
      const k = Math.min(Math.max(Math.floor(x + 0.5), 1), this.n);
      if (k - x <= this.cut || u >= this.hIntegral(k + 0.5) - this.h(k)) return scrambleRank(k - 1, this.n);
    }
  }
  private h(x: number): number {
    return Math.exp(-this.s * Math.log(x));
  }
  private hIntegral(x: number): number {
    const logX = Math.log(x);
    const t = (1 - this.s) * logX;
    // expm1(t)/t, by its Taylor series near 0 where the quotient loses all precision.
    return (Math.abs(t) > 1e-8 ? Math.expm1(t) / t : 1 + t * 0.5 * (1 + (t / 3) * (1 + 0.25 * t))) * logX;
  }
  private hIntegralInverse(x: number): number {
    // Rounding can push t just below -1, where log1p is undefined.
    const t = Math.max(x * (1 - this.s), -1);
    return Math.exp((Math.abs(t) > 1e-8 ? Math.log1p(t) / t : 1 - t * (0.5 - t * (1 / 3 - 0.25 * t))) * x);
  }
}

/** Normal(N/2, N/6) as memtier_benchmark draws it; ±3σ spans the key space, the 0.3% beyond is redrawn. */
function gaussian(rng: Rng, n: number): KeyGenerator {
  const mean = n / 2;
  const sd = n / 6;
  let spare = 0;
  let hasSpare = false;
  return {
    nextKey: () => {
      for (;;) {
        let z = spare;
        // Box–Muller yields two normals per pair of uniforms; keep the second for the next call.
        if (!hasSpare) {
          const r = Math.sqrt(-2 * Math.log(1 - rng.next()));
          const theta = 2 * Math.PI * rng.next();
          z = r * Math.cos(theta);
          spare = r * Math.sin(theta);
        }
        hasSpare = !hasSpare;
        const key = Math.floor(mean + sd * z);
        if (key >= 0 && key < n) return key;
      }
    },
  };
}
