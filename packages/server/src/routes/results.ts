import { type BenchDb, getEnvelope, IngestError } from '@redis-benchdb/db';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../http-error.js';
import type { IngestQueue } from '../ingest-queue.js';
import { nestsDeeperThan } from '../json-depth.js';
import { type KeyBudget, peekKeyFingerprint } from '../key-budget.js';

export interface ResultsRouteDeps {
  db: BenchDb;
  queue: IngestQueue;
  keys: KeyBudget;
}

/** Deeper than any envelope (one level: the result is a string inside it), shallow enough to scan. */
const MAX_DEPTH = 64;

/** A content id: the hex SHA-256 of a payload. Anything else cannot be stored, so it is not looked up. */
const ID = /^[0-9a-f]{64}$/;

/** Refusals that come after ingest verified the signature: the key's owner sent these. */
const SIGNED_REFUSALS = new Set(['INVALID_RESULT', 'IMPLAUSIBLE']);

/** The raw body (see app.ts), or an empty one when the request had none. */
export function rawBody(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

export function resultsRoutes(app: FastifyInstance, { db, queue, keys }: ResultsRouteDeps): void {
  app.post('/api/v1/results', async (request, reply) => {
    const body = rawBody(request);
    if (nestsDeeperThan(body, MAX_DEPTH))
      throw new HttpError(
        'TOO_DEEP',
        400,
        `the body nests arrays or objects more than ${MAX_DEPTH} deep; an envelope nests one: send the envelope run --out wrote`,
      );
    const key = peekKeyFingerprint(body);
    if (key !== undefined) {
      const retryAfterSec = keys.retryAfterSec(key);
      if (retryAfterSec > 0)
        throw new HttpError(
          'RATE_LIMITED',
          429,
          `key ${key} has sent ${keys.perMinute} submissions this minute; retry in ${retryAfterSec} s`,
          retryAfterSec,
        );
    }
    try {
      const { id, pagePath, duplicate } = await queue.submit(body);
      if (key !== undefined) keys.charge(key);
      reply.header('location', `/api/v1/results/${id}`);
      // The body says `duplicate` only when it is one, so that a new result's answer is just where it went.
      return reply
        .status(duplicate ? 200 : 201)
        .send(duplicate ? { id, pagePath, duplicate } : { id, pagePath });
    } catch (e) {
      if (key !== undefined && e instanceof IngestError && SIGNED_REFUSALS.has(e.code)) keys.charge(key);
      throw e;
    }
  });

  app.get<{ Params: { id: string } }>('/api/v1/results/:id', async (request, reply) => {
    const { id } = request.params;
    const stored = ID.test(id) ? getEnvelope(db, id) : null;
    if (!stored) throw new HttpError('NOT_FOUND', 404, `no result ${id}`);
    if (stored.retractedAt !== null)
      throw new HttpError(
        'RETRACTED',
        410,
        `result ${id} was retracted by its owner at ${stored.retractedAt}`,
      );
    // The envelope as verified (canonical): what `redis-benchdb verify` checks.
    return reply.type('application/json; charset=utf-8').send(stored.envelope);
  });
}
