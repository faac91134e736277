import { type BenchDb, getStoredResult, IngestError } from '@redis-benchdb/db';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ANY, BODY, error, idParams, signed, WRITE } from '../api-doc/responses.js';
import { HttpError } from '../http-error.js';
import type { IngestQueue } from '../ingest-queue.js';
import type { KeyBudget } from '../key-budget.js';
import type { NewKeyBudget } from '../new-key-budget.js';
import { standings } from '../ranks.js';
import type { CohortCache } from '../read/cohort-cache.js';
import type { StorageHealth } from '../storage-health.js';

export interface ResultsRouteDeps {
  db: BenchDb;
  queue: IngestQueue;
  keys: KeyBudget;
  /** New keys per network (new-key-budget.ts). */
  newKeys: NewKeyBudget;
  /** The network a request counts as (network.ts). */
  network: (request: FastifyRequest) => string;
  /** Told of every result stored. */
  cohorts: CohortCache;
  /** Whether the database can take a write; told of every write's outcome. */
  storage: StorageHealth;
  /** The socket's idle timeout (fastify's connectionTimeout). */
  idleTimeoutMs: number;
  /** Told when a new result is stored (the publishing service rebuilds its site). */
  changed: () => void;
}

/** A content id: the hex SHA-256 of a payload. Anything else cannot be stored, so it is not looked up. */
const ID = /^[0-9a-f]{64}$/;

/** Refusals that come after ingest verified the signature: the key's owner sent these. */
const SIGNED_REFUSALS = new Set([
  'INVALID_RESULT',
  'IMPLAUSIBLE',
  'KEY_MISMATCH',
  'IDENTITY_TEXT',
  'FINISHED_IN_FUTURE',
  'RUN_GROUP_NOT_YOURS',
  'RUN_GROUP_MISMATCH',
]);

const SUBMIT = {
  summary: 'Submit a signed result (redis-benchdb/envelope.v1)',
  body: signed('the envelope as run --out writes it'),
  response: {
    201: { $ref: 'Submitted#', description: 'stored' },
    200: { $ref: 'Submitted#', description: 'already stored (duplicate: true)' },
    ...ANY,
    ...BODY,
    403: error('KEY_REVOKED: its key was revoked here'),
    409: error('DISPUTED: another key sent the very same payload before; both claims are recorded'),
    422: error(
      'not stored: a bad signature, an invalid result, implausible figures ... (the code says which)',
    ),
    ...WRITE,
    503: error('BUSY: too many submissions being checked, or NOT_WRITABLE; retry-after says when'),
  },
};

const GET_RESULT = {
  summary: "One result: a signed result's envelope as verified, or an imported result's document",
  params: idParams,
  response: {
    200: {
      type: 'object',
      required: ['schema'],
      description: 'redis-benchdb/envelope.v1 or redis-benchdb/imported.v1, as its schema field says',
    },
    ...ANY,
    404: error('NOT_FOUND: no such result'),
    410: error('RETRACTED: its owner retracted it'),
  },
};

/** The raw body (see app.ts), or an empty one when the request had none. */
export function rawBody(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

export function resultsRoutes(app: FastifyInstance, deps: ResultsRouteDeps): void {
  app.post('/api/v1/results', { schema: SUBMIT }, async (request, reply) => {
    // The body is in, within the request deadline. The socket's idle timer would cut the wait for a
    // check thread and a commit (seconds, behind a few 4 MiB bodies) with no answer at all: that
    // wait is the service's own, and the queue bounds it. The timer runs again for the reply.
    const socket = request.raw.socket;
    socket.setTimeout(0);
    try {
      return await submit(request, reply, deps);
    } finally {
      socket.setTimeout(deps.idleTimeoutMs);
    }
  });

  app.get<{ Params: { id: string } }>(
    '/api/v1/results/:id',
    { schema: GET_RESULT },
    async (request, reply) => {
      const { id } = request.params;
      const stored = ID.test(id) ? getStoredResult(deps.db, id) : null;
      if (!stored) throw new HttpError('NOT_FOUND', 404, `no result ${id}`);
      if (stored.retractedAt !== null)
        throw new HttpError(
          'RETRACTED',
          410,
          `result ${id} was retracted by its owner at ${stored.retractedAt}`,
        );
      // A signed result's envelope as verified (canonical): what `redis-benchdb verify` checks; an
      // imported result's document. Their `schema` field says which.
      return reply.type('application/json; charset=utf-8').send(stored.json);
    },
  );
}

/**
 * Every check, the key's peek included, runs on a worker thread (check-worker.ts); a refusal comes
 * back as the outcome. The key's limit is still decided before anything is stored.
 */
async function submit(
  request: FastifyRequest,
  reply: FastifyReply,
  { queue, keys, newKeys, network, cohorts, storage, changed }: ResultsRouteDeps,
) {
  // Before the checks: a disk with no room or a read-only file would fail the write anyway.
  storage.refuseIfUnwritable();
  const { key, outcome } = await queue.check(rawBody(request));
  if (key !== undefined) {
    const retryAfterSec = await keys.retryAfterSec(request, key);
    if (retryAfterSec > 0)
      throw new HttpError(
        'RATE_LIMITED',
        429,
        `key ${key} has sent ${keys.perMinute} submissions this minute; retry in ${retryAfterSec} s`,
        retryAfterSec,
      );
  }
  const from = network(request);
  if (key !== undefined) {
    const retryAfterSec = newKeys.retryAfterSec(from, key);
    if (retryAfterSec > 0)
      throw new HttpError(
        'RATE_LIMITED',
        429,
        `your network (${from}) has brought in ${newKeys.perHour} new signing keys this hour, as many as it may; sign with a key that has results here, or retry in ${retryAfterSec} s`,
        retryAfterSec,
      );
  }
  if (outcome instanceof IngestError) {
    if (key !== undefined && SIGNED_REFUSALS.has(outcome.code)) {
      await keys.charge(request, key);
      newKeys.charge(from, key, false);
    }
    throw outcome;
  }
  let stored: Awaited<ReturnType<IngestQueue['store']>>;
  try {
    stored = await queue.store(outcome);
    storage.writeSucceeded();
  } catch (e) {
    // Refused against what is stored (a run group another key holds): as the checks' refusals above.
    if (e instanceof IngestError && key !== undefined && SIGNED_REFUSALS.has(e.code)) {
      await keys.charge(request, key);
      newKeys.charge(from, key, false);
    }
    // The same payload under a second key: the stored result is now disputed and leaves its cohorts.
    if (e instanceof IngestError && e.code === 'DISPUTED') {
      cohorts.retracted();
      changed();
    }
    // SQLITE_FULL becomes 507, SQLITE_READONLY 503, each saying that nothing was stored.
    throw storage.writeFailed(e);
  }
  const { id, pagePath, duplicate, copyOf, disputedWith } = stored;
  if (disputedWith) cohorts.retracted();
  else if (!duplicate) cohorts.added(id);
  if (!duplicate) changed();
  if (key !== undefined) {
    await keys.charge(request, key);
    newKeys.charge(from, key, true);
  }
  reply.header('location', `/api/v1/results/${id}`);
  // The body says `duplicate` only when it is one, so that a new result's answer is just where it went;
  // `copyOf` when it was stored as the copy of the same key's earlier result (db copies.ts);
  // `disputedWith` when another key's results hold the same measurements (db disputes.ts). `ranks`:
  // where its headline cells stand now, read after the commit so the cohort includes it.
  return reply.status(duplicate ? 200 : 201).send({
    id,
    pagePath,
    ...(copyOf ? { copyOf } : {}),
    ...(disputedWith ? { disputedWith } : {}),
    ...(duplicate ? { duplicate } : {}),
    ranks: standings(cohorts, id),
  });
}
