import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../http-error.js';
import type { CohortCache } from '../read/cohort-cache.js';
import { OPENAPI_DOCUMENT } from '../read/openapi.js';
import { parseListQuery } from '../read/query.js';
import type { ReadPool } from '../read/read-pool.js';

/** A workload fingerprint as result.v1 writes it. */
const FINGERPRINT = /^sha256:[0-9a-f]{64}$/;
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The read API: `GET /api/v1/results` (filtered, keyset-paged) and `GET /api/v1/cohorts/:fingerprint`
 * (a workload's spread of ops/s). Both read covering indexes only, within fixed bounds
 * (db result-search.ts, cohort.ts), on a ReadPool thread: the event loop only parses the query and
 * sends the JSON the thread made. openapi.ts describes them.
 */
export function readRoutes(
  app: FastifyInstance,
  {
    cohorts,
    reads,
    networkOf,
  }: { cohorts: CohortCache; reads: ReadPool; networkOf: (request: FastifyRequest) => string },
): void {
  app.get('/api/v1/results', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const { filter, options } = parseListQuery(query);
    // parseListQuery refused every value that is not one string.
    const json = await reads.run(
      { kind: 'list', query: query as Record<string, string>, filter, options },
      networkOf(request),
    );
    return reply.type(JSON_TYPE).send(json);
  });

  app.get<{ Params: { fingerprint: string }; Querystring: Record<string, unknown> }>(
    '/api/v1/cohorts/:fingerprint',
    async (request, reply) => {
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
      const json = await cohorts.get(fingerprint, cpuModel, (workloadFingerprint, cpu) =>
        reads.run({ kind: 'cohort', workloadFingerprint, cpuModel: cpu }, networkOf(request)),
      );
      return reply.type(JSON_TYPE).send(json);
    },
  );
}

export function openApiRoute(app: FastifyInstance): void {
  app.get('/api/v1/openapi.json', async () => OPENAPI_DOCUMENT);
}
