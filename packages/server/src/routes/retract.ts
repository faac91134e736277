import type { AddressInfo } from 'node:net';
import { type BenchDb, retract, serviceOrigin } from '@redis-benchdb/db';
import type { FastifyInstance } from 'fastify';
import { ANY, BODY, error, idParams, object, signed, WRITE } from '../api-doc/responses.js';
import { HttpError } from '../http-error.js';
import type { CohortCache } from '../read/cohort-cache.js';
import type { StorageHealth } from '../storage-health.js';
import { rawBody } from './results.js';

const RETRACT = {
  summary:
    'Retract your own result with a signed redis-benchdb/retract.v2 request (naming the origin of the service, with an expiry)',
  params: idParams,
  body: signed('the request as signRetraction makes it'),
  response: {
    200: object('retracted, or retracted before (alreadyRetracted)'),
    ...ANY,
    ...BODY,
    403: error('NOT_YOUR_RESULT, or KEY_REVOKED'),
    404: error('NOT_FOUND: no such result'),
    409: error('DISPUTED: another key claims this very payload'),
    422: error(
      'BAD_SIGNATURE, STALE_REQUEST, EXPIRED_REQUEST, or WRONG_SERVICE (signed for another service)',
    ),
    ...WRITE,
  },
};

/**
 * POST a signed retraction request (`redis-benchdb/retract.v2`, as signRetraction makes) to unlist
 * a result. 200 with `{ id, retractedAt, alreadyRetracted }`; RetractError's status otherwise. The
 * request must name this service's origin (`publicUrl`, else the address it listens on).
 */
export function retractRoutes(
  app: FastifyInstance,
  {
    db,
    cohorts,
    storage,
    changed,
    publicUrl,
  }: {
    db: BenchDb;
    cohorts: CohortCache;
    storage: StorageHealth;
    changed: () => void;
    publicUrl: string | undefined;
  },
): void {
  const configured = publicUrl === undefined ? undefined : [serviceOrigin(publicUrl)];
  app.post<{ Params: { id: string } }>(
    '/api/v1/results/:id/retract',
    { schema: RETRACT },
    async (request) => {
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
        outcome = retract(db, req, { origins: configured ?? listenOrigins(app.server.address()) });
      } catch (e) {
        throw storage.writeFailed(e);
      }
      // A retracted result leaves its cohorts.
      cohorts.retracted();
      changed();
      return outcome;
    },
  );
}

/**
 * A service given no public URL answers at the address it listens on; on a loopback address also by
 * the name `localhost`, as a client on the same machine writes it. A wildcard address (0.0.0.0, ::)
 * names no address a client uses: such a service needs `--public-url` to take retractions.
 */
export function listenOrigins(address: AddressInfo | string | null): string[] {
  if (address === null || typeof address === 'string') return [];
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const origins = [serviceOrigin(`http://${host}:${address.port}`)];
  if (address.address === '127.0.0.1' || address.address === '::1')
    origins.push(serviceOrigin(`http://localhost:${address.port}`));
  return origins;
}
