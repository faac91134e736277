import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  type ResultFilter,
  type SearchOptions,
} from '@redis-benchdb/db';
import type { HttpError } from '../http-error.js';
import { decodeCursor } from './cursor.js';
import { bad, parameterOf, quoted, type Refusal, unknownParameters } from './query-schema.js';

// The query parameters of `GET /api/v1/results` as its schema declares them, the words it refuses a
// value with, and the search they ask for. `machine` and `cpuModel` are declared and refused here
// for the cohort route too (routes/read.ts), so that both refuse the same value the same way.

/** What result.v1 allows for environment.virtualization.kind (find-cells.ts names the same). */
export const VIRTUALIZATION_KINDS = ['bare-metal', 'vm', 'container', 'vm+container'] as const;

/** The longest text filter: a CPU model or a test name is far shorter; a longer one is a mistake. */
const MAX_TEXT = 200;
/** A machine kind's key joins 13 fields, the CPU model name (up to 200 characters) among them. */
export const MAX_MACHINE_KEY = 600;

const text = (description: string) => ({ type: 'string', minLength: 1, maxLength: MAX_TEXT, description });
const int = (description: string, max = Number.MAX_SAFE_INTEGER) => ({
  type: 'integer',
  minimum: 1,
  maximum: max,
  description,
});
/** A machine kind's key as identity.ts writes it. */
export const machine = (description: string) => ({
  type: 'string',
  minLength: 1,
  maxLength: MAX_MACHINE_KEY,
  pattern: '^m1\\|',
  description,
});
export const cpuModel = (description: string) => text(description);

export const LIST_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    test: text('a cell ran this test, e.g. GET or SET'),
    pipelineDepth: int('a cell ran at this pipeline depth'),
    valueSize: int('a cell wrote values of exactly this many bytes'),
    connections: int('a cell used this many connections'),
    serverProduct: text('redis, valkey, keydb, dragonfly, ...'),
    serverVersion: text('as the server reported it, e.g. 7.2.4'),
    cpuModel: cpuModel(
      "the client machine's CPU model name, as /proc/cpuinfo names it; several machine kinds may share one (machine tells them apart)",
    ),
    machine: machine('one machine kind: machine.key of a result, URL-encoded'),
    virtualizationKind: { type: 'string', enum: VIRTUALIZATION_KINDS },
    limit: int(`results per page, default ${DEFAULT_SEARCH_LIMIT}`, MAX_SEARCH_LIMIT),
    cursor: { type: 'string', description: 'the nextCursor of the previous page' },
  },
} as const;

/** The query parameters of `GET /api/v1/results`, as the OpenAPI document lists them. */
export const LIST_PARAMETERS: readonly string[] = Object.keys(LIST_QUERY.properties);

/** The list's query once its schema took it: integers are numbers, each value given once. */
export type ListQuery = Partial<Record<keyof typeof LIST_QUERY.properties, string | number>>;

/**
 * The words a refusal of `machine` or `cpuModel` is said in on every route; undefined for another
 * parameter, or another refusal (a value given twice, which each route words itself).
 */
export function sharedRefusal(r: Refusal): HttpError | undefined {
  const name = parameterOf(r);
  if (name === 'machine' && r.keyword === 'pattern')
    return bad(
      `machine ${quoted(r.data)} is not a machine kind's key: pass machine.key of a result in GET /api/v1/results (it starts m1|), URL-encoded; leave it out for every kind`,
    );
  if (name === 'cpuModel' && (r.keyword === 'minLength' || r.keyword === 'maxLength'))
    return bad(`cpuModel must be 1 to ${MAX_TEXT} characters; leave it out to match any`);
  return undefined;
}

/** A refusal of the list's query, naming the parameter and what it takes. */
export function listRefusal(r: Refusal): HttpError {
  const name = parameterOf(r);
  const schema = r.parentSchema as { type?: string; minimum?: number; maximum?: number; maxLength?: number };
  if (r.keyword === 'additionalProperties')
    return bad(
      `unknown parameter ${unknownParameters(r, LIST_PARAMETERS).join(', ')}; the parameters are ${LIST_PARAMETERS.join(', ')}`,
    );
  if (r.keyword === 'type' && Array.isArray(r.data))
    return bad(`${name} is given more than once; give it once`);
  const shared = sharedRefusal(r);
  if (shared) return shared;
  if (schema.type === 'integer')
    return bad(
      `${name} must be an integer from ${schema.minimum} to ${schema.maximum}, got ${quoted(r.data, 40)}`,
    );
  if (r.keyword === 'enum')
    return bad(`${name} ${JSON.stringify(r.data)} is not one of ${VIRTUALIZATION_KINDS.join(', ')}`);
  return bad(`${name} must be 1 to ${schema.maxLength} characters; leave it out to match any`);
}

/** The search a checked query asks for. */
export function searchOf(query: ListQuery): { filter: ResultFilter; options: SearchOptions } {
  const { limit, cursor, ...filter } = query;
  return {
    filter: filter as ResultFilter,
    options: {
      ...(limit !== undefined ? { limit: Number(limit) } : {}),
      ...(cursor !== undefined ? { after: decodeCursor(String(cursor)) } : {}),
    },
  };
}
