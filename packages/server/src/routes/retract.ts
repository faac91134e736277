import { type BenchDb, retract } from '@redis-benchdb/db';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../http-error.js';
import type { CohortCache } from '../read/cohort-cache.js';
import type { StorageHealth } from '../storage-health.js';
import { rawBody } from './results.js';

/**
 * POST a signed retraction request (`redis-benchdb/retract.v1`, as signRetraction makes) to unlist
 * a result. 200 with `{ id, retractedAt, alreadyRetracted }`; RetractError's status otherwise.
 */
export function retractRoutes(
  app: FastifyInstance,
  {
    db,
    cohorts,
    storage,
    changed,
  }: { db: BenchDb; cohorts: CohortCache; storage: StorageHealth; changed: () => void },
): void {
  app.post<{ Params: { id: string } }>('/api/v1/results/:id/retract', async (request) => {
    let req: unknown;
    try {
      req = JSON.parse(rawBody(request).toString('utf8'));
    } catch (e) {
      throw new HttpError('MALFORMED_REQUEST', 400, `malformed JSON: ${(e as Error).message}`);
    }
    // The signature covers resultId, not the URL: a request must not retract what its URL does not name.
    const named = (req as { resultId?: unknown } | null)?.resultId;
    if (typeof named === 'string' && named !== request.params.id)
      throw new HttpError(
        'MALFORMED_REQUEST',
        400,
        `the request retracts ${named} but was sent to the URL of ${request.params.id}`,
      );
    let outcome: ReturnType<typeof retract>;
    try {
      outcome = retract(db, req);
    } catch (e) {
      throw storage.writeFailed(e);
    }
    // A retracted result leaves its cohorts.
    cohorts.retracted();
    changed();
    return outcome;
  });
}
