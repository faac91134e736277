import { type BenchDb, keysWithResults } from '@redis-benchdb/db';

const WINDOW_MS = 3_600_000;
/** Past this many networks, forget those whose window has ended. */
const PRUNE_AT = 10_000;

interface Window {
  startedAt: number;
  keys: Set<string>;
}

/**
 * The cap on new signing keys per network (network.ts), per hour: a key is new until a result it
 * signed is stored. The per-key limit counts what one key sends, which a client escapes by making a
 * key per submission (issue 30 item 8: 1,000 of 1,000 such submissions were stored in 9.9 s); this
 * counts the keys themselves. Like the per-key limit it is charged only for a submission whose
 * signature verified, so nobody can use up a network's keys by naming keys they do not hold.
 *
 * Not a rate limit, so not @fastify/rate-limit's: it counts distinct keys, not requests (one key's
 * hundredth submission costs nothing, a second key one), and a key with a result stored (read from
 * the database at start) is never new again, whichever network sends it.
 */
export class NewKeyBudget {
  /** Keys that have a result stored: not new, whatever network sends them. */
  readonly #known: Set<string>;
  readonly #windows = new Map<string, Window>();

  constructor(
    db: BenchDb,
    readonly perHour: number,
  ) {
    this.#known = new Set(keysWithResults(db));
  }

  /** Seconds until `network` may bring in `key`; 0 when it may now (a known key, or room left). */
  retryAfterSec(network: string, key: string, now = Date.now()): number {
    if (this.#known.has(key)) return 0;
    const w = this.#windows.get(network);
    if (!w || now - w.startedAt >= WINDOW_MS || w.keys.has(key) || w.keys.size < this.perHour) return 0;
    return Math.max(1, Math.ceil((w.startedAt + WINDOW_MS - now) / 1000));
  }

  /** `network` brought in `key`, and a result of it was stored (`stored`) or refused after its signature verified. */
  charge(network: string, key: string, stored: boolean, now = Date.now()): void {
    if (this.#known.has(key)) return;
    let w = this.#windows.get(network);
    if (!w || now - w.startedAt >= WINDOW_MS) {
      if (!w && this.#windows.size >= PRUNE_AT) this.#prune(now);
      w = { startedAt: now, keys: new Set() };
      this.#windows.set(network, w);
    }
    w.keys.add(key);
    if (stored) this.#known.add(key);
  }

  #prune(now: number): void {
    for (const [n, w] of this.#windows) if (now - w.startedAt >= WINDOW_MS) this.#windows.delete(n);
  }
}
