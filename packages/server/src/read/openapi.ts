import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  MIN_COHORT_FOR_PERCENTILES,
  SEARCH_SCAN_LIMIT,
} from '@redis-benchdb/db';
import { MAX_MACHINE_KEY, VIRTUALIZATION_KINDS } from './query.js';

/**
 * The service's OpenAPI 3.1 document, served at GET /api/v1/openapi.json. Written by hand: the
 * routes take their bodies as raw bytes (the signature covers them) and check queries themselves, so
 * there are no route schemas for a generator to read. A test holds it to the routes the app has.
 */
const error = { $ref: '#/components/responses/Error' };
const json = (schema: object, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
const text = (name: string, description: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', minLength: 1, maxLength: 200 },
});
const int = (name: string, description: string, max?: number) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'integer', minimum: 1, ...(max ? { maximum: max } : {}) },
});
const idParam = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
};
const nullable = (type: string) => ({ type: [type, 'null'] });
const machineParam = (description: string) => ({
  name: 'machine',
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', minLength: 1, maxLength: MAX_MACHINE_KEY, pattern: '^m1\\|' },
});
const kind = {
  type: ['object', 'null'],
  required: ['key', 'label'],
  properties: { key: { type: 'string' }, label: nullable('string') },
};

const standing = {
  type: ['object', 'null'],
  required: ['size', 'place', 'ties', 'distinctSigners', 'percentile'],
  properties: {
    size: { type: 'integer', description: 'results in the cohort, this one included' },
    place: { type: 'integer', description: '1 for the fastest; equally fast results share a place' },
    ties: { type: 'integer' },
    distinctSigners: {
      type: 'integer',
      description:
        "distinct signers in the cohort; the keys of one signer (the project's data keys) count once",
    },
    percentile: {
      ...nullable('number'),
      description: `percent of the other results this one is faster than (ties count half); null under ${MIN_COHORT_FOR_PERCENTILES} results`,
    },
  },
};

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'redis-benchdb',
    version: '1',
    description: `Signed Redis benchmark results: submit, read, list, and rank. Every error is {"error": {"code", "message"}}, the message saying what to change. Every read is bounded: a list request walks at most ${SEARCH_SCAN_LIMIT} results of an index, newest first, so a page may hold fewer than limit results (or none) while nextCursor is not null; follow next until it is null.`,
  },
  paths: {
    '/api/v1/results': {
      get: {
        summary: 'List results, newest received first, filtered',
        parameters: [
          text('test', 'a cell ran this test, e.g. GET or SET'),
          int('pipelineDepth', 'a cell ran at this pipeline depth'),
          int('valueSize', 'a cell wrote values of exactly this many bytes'),
          int('connections', 'a cell used this many connections'),
          text('serverProduct', 'redis, valkey, keydb, dragonfly, ...'),
          text('serverVersion', 'as the server reported it, e.g. 7.2.4'),
          text(
            'cpuModel',
            "the client machine's CPU model name, as /proc/cpuinfo names it; several machine kinds may share one (machine tells them apart)",
          ),
          machineParam('one machine kind: machine.key of a result, URL-encoded'),
          {
            name: 'virtualizationKind',
            in: 'query',
            required: false,
            schema: { enum: VIRTUALIZATION_KINDS },
          },
          int('limit', `results per page, default ${DEFAULT_SEARCH_LIMIT}`, MAX_SEARCH_LIMIT),
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'the nextCursor of the previous page',
            schema: { type: 'string' },
          },
        ],
        description:
          'The cell filters (test, pipelineDepth, valueSize, connections) must all hold for one cell; each result lists its matching cells, or without a cell filter its headline cells (GET and SET, else its first two).',
        responses: {
          200: json({ $ref: '#/components/schemas/ResultPage' }, 'a page of results'),
          400: error,
          429: error,
        },
      },
      post: {
        summary: 'Submit a signed result (redis-benchdb/envelope.v1)',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          201: json({ $ref: '#/components/schemas/Submitted' }, 'stored'),
          200: json({ $ref: '#/components/schemas/Submitted' }, 'already stored (duplicate: true)'),
          400: error,
          413: error,
          415: error,
          422: error,
          429: error,
          503: error,
        },
      },
    },
    '/api/v1/results/{id}': {
      get: {
        summary: "One result: a signed result's envelope as verified, or an imported result's document",
        parameters: [idParam],
        responses: {
          200: json(
            { type: 'object', required: ['schema'] },
            'redis-benchdb/envelope.v1 or redis-benchdb/imported.v1, as its schema field says',
          ),
          404: error,
          410: error,
        },
      },
    },
    '/api/v1/results/{id}/retract': {
      post: {
        summary: 'Retract your own result with a signed redis-benchdb/retract.v1 request',
        parameters: [idParam],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          200: json({ type: 'object' }, 'retracted'),
          400: error,
          403: error,
          404: error,
          422: error,
        },
      },
    },
    '/api/v1/cohorts/{fingerprint}': {
      get: {
        summary: "A workload's cohort: how the ops/s of every listed result that ran it spread",
        parameters: [
          {
            name: 'fingerprint',
            in: 'path',
            required: true,
            schema: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
          },
          machineParam(
            'one machine kind: machine.key of a result in GET /api/v1/results, URL-encoded; left out, every kind (the answer lists them in machines)',
          ),
          {
            name: 'config',
            in: 'query',
            required: false,
            description:
              'default (the configuration `redis-benchdb run` launches by default: io-threads 1, no persistence, TCP, standalone, jemalloc), any (every configuration), or configuration.key of a result, URL-encoded',
            schema: { type: 'string', minLength: 1, maxLength: MAX_MACHINE_KEY, default: 'default' },
          },
          {
            name: 'cpuModel',
            in: 'query',
            required: false,
            deprecated: true,
            description:
              'deprecated: several machine kinds share a CPU model name ("AMD EPYC" VMs with other caches) and a cohort never pools them. Answered, with a Deprecation header, only where the name is one machine kind in the cohort; otherwise 400 AMBIGUOUS_CPU_MODEL, whose message lists the machine keys to pass instead. Not with machine',
            schema: { type: 'string', minLength: 1, maxLength: MAX_MACHINE_KEY },
          },
        ],
        responses: {
          200: json({ $ref: '#/components/schemas/Cohort' }, 'the distribution'),
          400: error,
        },
      },
    },
    '/api/v1/health': {
      get: {
        summary: 'Liveness, counts, and whether the database can be written',
        responses: {
          200: json({ type: 'object' }, 'ok: the database can be read and written'),
          503: json({ type: 'object' }, 'not ready: storage.problem says why (read-only, disk full)'),
        },
      },
    },
    '/api/v1/openapi.json': {
      get: { summary: 'This document', responses: { 200: json({ type: 'object' }, 'OpenAPI 3.1') } },
    },
  },
  components: {
    responses: { Error: json({ $ref: '#/components/schemas/Error' }, 'an error, with what to change') },
    schemas: {
      Error: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: { code: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
      ResultPage: {
        type: 'object',
        required: ['results', 'nextCursor', 'next'],
        properties: {
          results: { type: 'array', items: { $ref: '#/components/schemas/ResultSummary' } },
          nextCursor: nullable('string'),
          next: { ...nullable('string'), description: 'this query with the cursor set: follow it as it is' },
        },
      },
      ResultSummary: {
        type: 'object',
        required: ['id', 'kind', 'receivedAt', 'cells', 'url', 'pagePath'],
        properties: {
          id: { type: 'string' },
          kind: { enum: ['signed', 'imported'] },
          receivedAt: { type: 'string', format: 'date-time' },
          startedAt: nullable('string'),
          suiteId: nullable('string'),
          suiteProfile: nullable('string'),
          cpuModel: nullable('string'),
          cpuCores: nullable('integer'),
          virtualizationKind: nullable('string'),
          serverProduct: nullable('string'),
          serverVersion: nullable('string'),
          warningCodes: { type: 'array', items: { type: 'string' } },
          machine: {
            ...kind,
            description:
              'the machine kind (CPU vendor, model, family/model/stepping, cores, threads, caches, virtualization, container all equal): pass key as machine= to the cohorts and this list',
          },
          configuration: {
            type: ['object', 'null'],
            required: ['key', 'label', 'isDefault'],
            properties: {
              key: { type: 'string' },
              label: nullable('string'),
              isDefault: { type: 'boolean' },
            },
            description:
              "the server's configuration (io-threads, persistence, transport, topology, allocator): pass key as config= to the cohorts",
          },
          url: { type: 'string' },
          pagePath: { type: 'string' },
          cells: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                idx: { type: 'integer' },
                label: { type: 'string' },
                test: { type: 'string' },
                workloadFingerprint: nullable('string'),
                connections: nullable('integer'),
                pipelineDepth: nullable('integer'),
                valueSizeMin: nullable('integer'),
                valueSizeMax: nullable('integer'),
                opsPerSec: nullable('number'),
                p50Us: nullable('number'),
                p99Us: nullable('number'),
                p999Us: nullable('number'),
              },
            },
          },
        },
      },
      Submitted: {
        type: 'object',
        required: ['id', 'pagePath', 'ranks'],
        properties: {
          id: { type: 'string' },
          pagePath: { type: 'string' },
          duplicate: { type: 'boolean' },
          copyOf: { type: 'string' },
          ranks: {
            type: 'array',
            description: "the result's headline cells ranked among results of the same workload fingerprint",
            items: {
              type: 'object',
              required: ['label', 'workloadFingerprint', 'opsPerSec', 'overall', 'sameCpu', 'cohortUrl'],
              properties: {
                label: { type: 'string' },
                workloadFingerprint: { type: 'string' },
                opsPerSec: { type: 'number' },
                overall: standing,
                sameCpu: {
                  ...standing,
                  description:
                    'among results of the same machine kind (not merely the same CPU model name), every configuration',
                },
                cohortUrl: { type: 'string' },
              },
            },
          },
        },
      },
      Cohort: {
        type: 'object',
        required: [
          'workloadFingerprint',
          'machine',
          'configuration',
          'cpuModel',
          'machines',
          'count',
          'distinctSigners',
          'opsPerSec',
        ],
        properties: {
          workloadFingerprint: { type: 'string' },
          machine: { ...kind, description: 'the machine kind asked for; null: every kind' },
          configuration: {
            description: "'default', 'any', or the configuration asked for",
            oneOf: [{ enum: ['default', 'any'] }, kind],
          },
          cpuModel: { ...nullable('string'), description: 'the deprecated cpuModel asked for, or null' },
          machines: {
            type: 'array',
            description: 'the machine kinds among the members, most members first',
            items: {
              type: 'object',
              required: ['key', 'label', 'count'],
              properties: { key: nullable('string'), label: nullable('string'), count: { type: 'integer' } },
            },
          },
          deprecation: {
            type: 'string',
            description: 'present when cpuModel was given: what to pass instead',
          },
          count: { type: 'integer' },
          distinctSigners: { type: 'integer' },
          opsPerSec: {
            type: 'object',
            properties: {
              min: nullable('number'),
              max: nullable('number'),
              percentiles: {
                type: ['object', 'null'],
                description: `nearest-rank p10, p25, p50, p75, p90; null under ${MIN_COHORT_FOR_PERCENTILES} results`,
              },
              values: {
                type: ['array', 'null'],
                items: { type: 'number' },
                description: 'every value, when too few for percentiles',
              },
            },
          },
        },
      },
    },
  },
} as const;
