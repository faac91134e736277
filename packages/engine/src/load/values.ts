import type { Rng } from '../keys.js';
import type { ValueSource } from '../resp/request-template.js';

/** Values are runs of 'x', as redis-benchmark's are; a range draws each size uniformly. */
export function createValueSource(min: number, max: number, rng: Rng): ValueSource {
  const pool = Buffer.alloc(max, 'x');
  if (min === max) {
    return { pool, maxSize: max, fixedHeader: Buffer.from(`$${max}\r\n`), nextSize: () => max };
  }
  const span = max - min + 1;
  return { pool, maxSize: max, fixedHeader: null, nextSize: () => min + rng.nextInt(span) };
}
