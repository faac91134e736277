import { MIN_COHORT_FOR_PERCENTILES, SEARCH_SCAN_LIMIT } from '@redis-benchdb/db';

// The shapes the API answers with, as shared schemas (fastify's addSchema, each named by its $id): the
// routes' own schemas (each beside its handler in routes/) refer to them as `Name#`, and the OpenAPI
// document lists them under components.schemas (swagger.ts).

export const OPENAPI_INFO = {
  title: 'redis-benchdb',
  version: '1',
  description: `Signed Redis benchmark results: submit, read, list, and rank. Every error is {"error": {"code", "message"}}, the message saying what to change. Every read is bounded: a list request walks at most ${SEARCH_SCAN_LIMIT} results of an index, newest first, so a page may hold fewer than limit results (or none) while nextCursor is not null; follow next until it is null.`,
};

const nullable = (type: string) => ({ type: [type, 'null'] });
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

/** Each with its $id: the name the document gives it, and the name a route's schema refers to. */
export const SHARED_SCHEMAS = Object.entries({
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
      results: { type: 'array', items: { $ref: 'ResultSummary#' } },
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
            held: {
              enum: ['PROVISIONAL', 'OUTLIER', null],
              description:
                'why the corroboration rule holds the result out of every summary (ranked against the admitted results as one more; no other rank counts it); null: admitted',
            },
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
}).map(([$id, schema]) => ({ $id, ...schema }));
