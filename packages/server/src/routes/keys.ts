import { type BenchDb, recordRevocation, recordRotation } from '@redis-benchdb/db';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ANY, BODY, error, object, signed, WRITE } from '../api-doc/responses.js';
import { HttpError } from '../http-error.js';
import type { CohortCache } from '../read/cohort-cache.js';
import type { StorageHealth } from '../storage-health.js';
import { rawBody } from './results.js';

const ROTATE_KEY = {
  summary:
    "A signed redis-benchdb/key-rotation.v1 statement: the old key names its successor, which may then retract the old key's results",
  body: signed('the statement keygen --rotate sends'),
  response: {
    201: object('recorded'),
    200: object('recorded before'),
    ...ANY,
    ...BODY,
    409: error('KEY_REVOKED, ALREADY_ROTATED (to another successor), or ROTATION_CYCLE'),
    422: error('BAD_SIGNATURE'),
    ...WRITE,
  },
};

const REVOKE_KEY = {
  summary:
    'A signed redis-benchdb/key-revocation.v1 statement, by the key or a successor: every result of the key is retracted, and it signs nothing more here',
  body: signed('the statement redis-benchdb revoke sends'),
  response: {
    200: object('revoked (or revoked before), with the results retracted'),
    ...ANY,
    ...BODY,
    403: error('NOT_YOUR_KEY: signed by neither the key nor a successor it named'),
    422: error('BAD_SIGNATURE'),
    ...WRITE,
  },
};

/**
 * What owners say about their keys (db keys/):
 * - `POST /api/v1/keys/rotations`: a `redis-benchdb/key-rotation.v1` statement, signed by the old key,
 *   naming its successor, which may then retract the old key's results → 201, 200 when known before
 * - `POST /api/v1/keys/revocations`: a `redis-benchdb/key-revocation.v1` statement, signed by the key or
 *   a successor → 200 with the results it retracted; the key signs nothing more here
 * KeyStatementError's status otherwise.
 */
export function keyRoutes(
  app: FastifyInstance,
  {
    db,
    cohorts,
    storage,
    changed,
  }: { db: BenchDb; cohorts: CohortCache; storage: StorageHealth; changed: () => void },
): void {
  /** Record a statement; a write the disk refuses is told as the storage's state (storage-health.ts). */
  const record = <T>(write: (db: BenchDb, statement: unknown) => T, request: FastifyRequest): T => {
    const statement = parsed(request);
    try {
      return write(db, statement);
    } catch (e) {
      throw storage.writeFailed(e);
    }
  };

  app.post('/api/v1/keys/rotations', { schema: ROTATE_KEY }, async (request, reply) => {
    const outcome = record(recordRotation, request);
    return reply.status(outcome.alreadyRecorded ? 200 : 201).send(outcome);
  });

  app.post('/api/v1/keys/revocations', { schema: REVOKE_KEY }, async (request) => {
    const outcome = record(recordRevocation, request);
    if (outcome.retracted.length > 0) {
      // Its results leave their cohorts, and their pages the site.
      cohorts.retracted();
      changed();
    }
    return outcome;
  });
}

function parsed(request: FastifyRequest): unknown {
  try {
    return JSON.parse(rawBody(request).toString('utf8'));
  } catch (e) {
    throw new HttpError('MALFORMED_REQUEST', 400, `malformed JSON: ${(e as Error).message}`);
  }
}
