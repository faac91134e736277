// The plugin's types add createRateLimit to FastifyInstance.
import type {} from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Keys remembered at once (an LRU): past it, the least recently seen key starts a fresh minute. */
const KEYS_KEPT = 10_000;

/**
 * The per-key limit: submissions signed by one key, per minute (fixed windows), counted by
 * @fastify/rate-limit's store (createRateLimit), the per-network limit's library, keyed by the key.
 *
 * Not a hook on the route, as the per-network limit is: the key is known only once a check thread has
 * read the envelope, and a submission is charged only when its signature verified (ingest also checks
 * that the fingerprint is the key's). Fingerprints are public: a limit charged on what an envelope
 * merely claims would let anyone use up another key's minute with junk naming it. Junk is the
 * per-network limit's business. So the route reads the budget before storing (`retryAfterSec`,
 * without counting) and charges after (`charge`); between them lies one batch, so a key may go over by
 * the submissions of one batch.
 */
export class KeyBudget {
  /** The key each request is counted under, while it is asked about (the limiter's keyGenerator). */
  readonly #keyOf = new WeakMap<FastifyRequest, string>();
  readonly #limit: ReturnType<FastifyInstance['createRateLimit']>;

  /** `app` must have @fastify/rate-limit registered (its createRateLimit). */
  constructor(
    app: FastifyInstance,
    readonly perMinute: number,
  ) {
    this.#limit = app.createRateLimit({
      max: perMinute,
      timeWindow: 60_000,
      keyGenerator: (request) => this.#keyOf.get(request) ?? '',
      // Every key counts: the per-network limit's allowList (the site's files) is not this one's.
      allowList: () => false,
      // A plugin setting the limiter's store takes too (its LRU's size); the types leave it out.
      ...({ cache: KEYS_KEPT } as object),
    });
  }

  /** Seconds until `key` may submit again; 0 when it may now. Counts nothing. */
  async retryAfterSec(request: FastifyRequest, key: string): Promise<number> {
    const state = await this.#ask(request, key, false);
    return state.isAllowed || state.remaining > 0 ? 0 : Math.max(1, state.ttlInSeconds);
  }

  /** One submission signed by `key` (its signature verified). */
  async charge(request: FastifyRequest, key: string): Promise<void> {
    await this.#ask(request, key, true);
  }

  async #ask(request: FastifyRequest, key: string, increment: boolean) {
    this.#keyOf.set(request, key);
    try {
      return await this.#limit(request, { increment });
    } finally {
      this.#keyOf.delete(request);
    }
  }
}
