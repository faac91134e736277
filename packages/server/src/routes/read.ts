import { type BenchDb, resultPagePath, searchResults } from '@redis-benchdb/db';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../http-error.js';
import type { CohortCache } from '../read/cohort-cache.js';
import { encodeCursor } from '../read/cursor.js';
import { OPENAPI_DOCUMENT } from '../read/openapi.js';
import { parseListQuery } from '../read/query.js';

/** A workload fingerprint as result.v1 writes it. */
const FINGERPRINT = /^sha256:[0-9a-f]{64}$/;

/**
 * The read API: `GET /api/v1/results` (filtered, keyset-paged) and `GET /api/v1/cohorts/:fingerprint`
 * (a workload's spread of ops/s). Both read covering indexes only, within fixed bounds
 * (db result-search.ts, cohort.ts); openapi.ts describes them.
 */
export function readRoutes(
  app: FastifyInstance,
  { db, cohorts }: { db: BenchDb; cohorts: CohortCache },
): void {
  app.get('/api/v1/results', async (request) => {
    const query = request.query as Record<string, unknown>;
    const { filter, options } = parseListQuery(query);
    const page = searchResults(db, filter, options);
    const nextCursor = page.next ? encodeCursor(page.next) : null;
    return {
      results: page.results.map((r) => ({
        ...r,
        url: `/api/v1/results/${r.id}`,
        pagePath: resultPagePath(r.id),
      })),
      nextCursor,
      // The same query with the cursor: a client follows it as it is.
      next: nextCursor ? `/api/v1/results?${nextQuery(query, nextCursor)}` : null,
    };
  });

  app.get<{ Params: { fingerprint: string }; Querystring: Record<string, unknown> }>(
    '/api/v1/cohorts/:fingerprint',
    async (request) => {
      const { fingerprint } = request.params;
      if (!FINGERPRINT.test(fingerprint))
        throw new HttpError(
          'BAD_FINGERPRINT',
          400,
          `${JSON.stringify(fingerprint.slice(0, 80))} is not a workload fingerprint: give one as a result's cell carries it, sha256: and 64 lowercase hex digits (GET /api/v1/results lists them)`,
        );
      const extra = Object.keys(request.query).filter((k) => k !== 'cpuModel');
      if (extra.length > 0)
        throw new HttpError(
          'BAD_QUERY',
          400,
          `unknown parameter ${extra.join(', ')}; the one parameter is cpuModel`,
        );
      const cpuModel = request.query.cpuModel;
      if (cpuModel !== undefined && (typeof cpuModel !== 'string' || cpuModel === ''))
        throw new HttpError(
          'BAD_QUERY',
          400,
          'cpuModel must be given once, not empty; leave it out for every machine',
        );
      return cohorts.get(fingerprint, cpuModel);
    },
  );
}

function nextQuery(query: Record<string, unknown>, cursor: string): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (k !== 'cursor' && typeof v === 'string') params.set(k, v);
  params.set('cursor', cursor);
  return params.toString();
}

export function openApiRoute(app: FastifyInstance): void {
  app.get('/api/v1/openapi.json', async () => OPENAPI_DOCUMENT);
}
