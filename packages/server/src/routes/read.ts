import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../http-error.js';
import type { CohortCache } from '../read/cohort-cache.js';
import { OPENAPI_DOCUMENT } from '../read/openapi.js';
import { MAX_MACHINE_KEY, parseListQuery } from '../read/query.js';
import type { ReadPool } from '../read/read-pool.js';
import type { CohortQuery } from '../read/read-worker.js';

/** A workload fingerprint as result.v1 writes it. */
const FINGERPRINT = /^sha256:[0-9a-f]{64}$/;
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The read API: `GET /api/v1/results` (filtered, keyset-paged) and `GET /api/v1/cohorts/:fingerprint`
 * (a workload's spread of ops/s, on one machine kind or every kind, in the default configuration unless
 * asked). Both read covering indexes only, within fixed bounds
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
      const q = cohortQuery(request.query);
      const json = await cohorts.get(fingerprint, q, (workloadFingerprint, query) =>
        reads.run({ kind: 'cohort', workloadFingerprint, ...query }, networkOf(request)),
      );
      // RFC 9745: the parameter still answers where it is unambiguous; the body says what to pass.
      if (q.cpuModel !== undefined) reply.header('deprecation', 'true');
      return reply.type(JSON_TYPE).send(json);
    },
  );
}

const COHORT_PARAMETERS = ['machine', 'config', 'cpuModel'];
/** A configuration's key as identity.ts writes it. */
const CONFIG_KEY = /^c1\|/;
const MACHINE_KEY = /^m1\|/;

/** The cohort's query, checked: each refusal says what was wrong and what to send. */
function cohortQuery(query: Record<string, unknown>): CohortQuery {
  const extra = Object.keys(query).filter((k) => !COHORT_PARAMETERS.includes(k));
  if (extra.length > 0)
    throw bad(
      `unknown parameter ${extra.join(', ')}; the parameters are machine (a machine kind's key), config (default, any or a configuration's key) and cpuModel (deprecated)`,
    );
  for (const name of COHORT_PARAMETERS) {
    const v = query[name];
    if (v !== undefined && (typeof v !== 'string' || v === '' || v.length > MAX_MACHINE_KEY))
      throw bad(
        `${name} must be given once, 1 to ${MAX_MACHINE_KEY} characters; leave it out for its default`,
      );
  }
  const { machine, config = 'default', cpuModel } = query as Record<string, string | undefined>;
  if (machine !== undefined && !MACHINE_KEY.test(machine))
    throw bad(
      `machine ${JSON.stringify(machine.slice(0, 80))} is not a machine kind's key: pass machine.key of a result in GET /api/v1/results (it starts m1|), URL-encoded; leave it out for every kind`,
    );
  if (config !== 'default' && config !== 'any' && !CONFIG_KEY.test(config))
    throw bad(
      `config ${JSON.stringify(config.slice(0, 80))} is not default, any or a configuration's key: pass configuration.key of a result in GET /api/v1/results (it starts c1|), URL-encoded`,
    );
  if (machine !== undefined && cpuModel !== undefined)
    throw bad('give machine or cpuModel, not both: machine alone names the kind (cpuModel is deprecated)');
  return {
    config,
    ...(machine !== undefined ? { machine } : {}),
    ...(cpuModel !== undefined ? { cpuModel } : {}),
  };
}

function bad(message: string): HttpError {
  return new HttpError('BAD_QUERY', 400, message);
}

export function openApiRoute(app: FastifyInstance): void {
  app.get('/api/v1/openapi.json', async () => OPENAPI_DOCUMENT);
}
