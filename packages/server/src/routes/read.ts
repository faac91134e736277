import type { FastifyInstance, FastifyRequest } from 'fastify';
import { READ } from '../api-doc/responses.js';
import { HttpError } from '../http-error.js';
import type { CohortCache } from '../read/cohort-cache.js';
import {
  cpuModel,
  LIST_QUERY,
  type ListQuery,
  listRefusal,
  MAX_MACHINE_KEY,
  machine,
  searchOf,
  sharedRefusal,
} from '../read/query.js';
import {
  bad,
  checkedBySchema,
  parameterOf,
  quoted,
  type Refusal,
  refusedAs,
  unknownParameters,
} from '../read/query-schema.js';
import type { ReadPool } from '../read/read-pool.js';
import type { CohortQuery } from '../read/read-worker.js';

const JSON_TYPE = 'application/json; charset=utf-8';

const LIST_RESULTS = {
  summary: 'List results, newest received first, filtered',
  description:
    'The cell filters (test, pipelineDepth, valueSize, connections) must all hold for one cell; each result lists its matching cells, or without a cell filter its headline cells (GET and SET, else its first two).',
  querystring: LIST_QUERY,
  response: {
    200: { $ref: 'ResultPage#', description: 'a page of results' },
    ...READ,
  },
};

const COHORT_PARAMETERS = ['machine', 'config', 'cpuModel'];

const COHORT = {
  summary: "A workload's cohort: how the ops/s of every listed result that ran it spread",
  params: {
    type: 'object',
    required: ['fingerprint'],
    // A workload fingerprint as result.v1 writes it.
    properties: { fingerprint: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' } },
  },
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      machine: machine(
        'one machine kind: machine.key of a result in GET /api/v1/results, URL-encoded; left out, every kind (the answer lists them in machines)',
      ),
      config: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_MACHINE_KEY,
        // A configuration's key as identity.ts writes it starts c1|.
        pattern: '^(?:default$|any$|c1\\|)',
        default: 'default',
        description:
          'default (the configuration `redis-benchdb run` launches by default: io-threads 1, no persistence, TCP, standalone, jemalloc), any (every configuration), or configuration.key of a result, URL-encoded',
      },
      cpuModel: {
        ...cpuModel(
          'deprecated: several machine kinds share a CPU model name ("AMD EPYC" VMs with other caches) and a cohort never pools them. Answered, with a Deprecation header, only where the name is one machine kind in the cohort; otherwise 400 AMBIGUOUS_CPU_MODEL, whose message lists the machine keys to pass instead. Not with machine',
        ),
        deprecated: true,
      },
    },
    not: { required: ['machine', 'cpuModel'] },
  },
  response: {
    200: { $ref: 'Cohort#', description: 'the distribution' },
    ...READ,
  },
};

/** A refusal of the cohort's path or query: each says what was wrong and what to send. */
function cohortRefusal(r: Refusal, part: string): HttpError {
  if (part === 'params')
    return new HttpError(
      'BAD_FINGERPRINT',
      400,
      `${quoted(r.data)} is not a workload fingerprint: give one as a result's cell carries it, sha256: and 64 lowercase hex digits (GET /api/v1/results lists them)`,
    );
  if (r.keyword === 'additionalProperties')
    return bad(
      `unknown parameter ${unknownParameters(r, COHORT_PARAMETERS).join(', ')}; the parameters are machine (a machine kind's key), config (default, any or a configuration's key) and cpuModel (deprecated)`,
    );
  if (r.keyword === 'not')
    return bad('give machine or cpuModel, not both: machine alone names the kind (cpuModel is deprecated)');
  const name = parameterOf(r);
  if (name === 'config' && r.keyword === 'pattern')
    return bad(
      `config ${quoted(r.data)} is not default, any or a configuration's key: pass configuration.key of a result in GET /api/v1/results (it starts c1|), URL-encoded`,
    );
  // A value given twice or empty is worded as the cohort has always worded it; a bad machine key or an
  // over-long cpuModel as the list words it.
  const given = r.keyword !== 'type' && r.keyword !== 'minLength';
  return (
    (given ? sharedRefusal(r) : undefined) ??
    bad(`${name} must be given once, 1 to ${MAX_MACHINE_KEY} characters; leave it out for its default`)
  );
}

/**
 * The read API: `GET /api/v1/results` (filtered, keyset-paged) and `GET /api/v1/cohorts/:fingerprint`
 * (a workload's spread of ops/s, on one machine kind or every kind, in the default configuration unless
 * asked). Their schemas check the query (read/query-schema.ts) before the handler runs. Both read
 * covering indexes only, within fixed bounds (db result-search.ts, cohort.ts), on a ReadPool thread:
 * the event loop only takes the query and sends the JSON the thread made.
 */
export function readRoutes(
  app: FastifyInstance,
  {
    cohorts,
    reads,
    networkOf,
  }: { cohorts: CohortCache; reads: ReadPool; networkOf: (request: FastifyRequest) => string },
): void {
  app.get<{ Querystring: ListQuery }>(
    '/api/v1/results',
    {
      schema: LIST_RESULTS,
      validatorCompiler: checkedBySchema,
      schemaErrorFormatter: refusedAs(listRefusal),
    },
    async (request, reply) => {
      const { filter, options } = searchOf(request.query);
      // The `next` link repeats the query, each value as text.
      const query = Object.fromEntries(Object.entries(request.query).map(([k, v]) => [k, String(v)]));
      const json = await reads.run({ kind: 'list', query, filter, options }, networkOf(request));
      return reply.type(JSON_TYPE).send(json);
    },
  );

  app.get<{ Params: { fingerprint: string }; Querystring: CohortQuery }>(
    '/api/v1/cohorts/:fingerprint',
    { schema: COHORT, validatorCompiler: checkedBySchema, schemaErrorFormatter: refusedAs(cohortRefusal) },
    async (request, reply) => {
      const { fingerprint } = request.params;
      const { machine, config, cpuModel } = request.query;
      const q: CohortQuery = {
        config,
        ...(machine !== undefined ? { machine } : {}),
        ...(cpuModel !== undefined ? { cpuModel } : {}),
      };
      const json = await cohorts.get(fingerprint, q, (workloadFingerprint, query) =>
        reads.run({ kind: 'cohort', workloadFingerprint, ...query }, networkOf(request)),
      );
      // RFC 9745: the parameter still answers where it is unambiguous; the body says what to pass.
      if (cpuModel !== undefined) reply.header('deprecation', 'true');
      return reply.type(JSON_TYPE).send(json);
    },
  );
}
