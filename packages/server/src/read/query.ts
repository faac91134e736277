import { MAX_SEARCH_LIMIT, type ResultFilter, type SearchOptions } from '@redis-benchdb/db';
import { HttpError } from '../http-error.js';
import { decodeCursor } from './cursor.js';

/** The query parameters of `GET /api/v1/results`, each a string as in the URL; the OpenAPI document lists them. */
export const TEXT_FILTERS = [
  'test',
  'serverProduct',
  'serverVersion',
  'cpuModel',
  'machine',
  'virtualizationKind',
] as const;
export const INTEGER_FILTERS = ['pipelineDepth', 'valueSize', 'connections'] as const;
export const PAGING = ['limit', 'cursor'] as const;
export const LIST_PARAMETERS: readonly string[] = [...TEXT_FILTERS, ...INTEGER_FILTERS, ...PAGING];

/** What result.v1 allows for environment.virtualization.kind (find-cells.ts names the same). */
export const VIRTUALIZATION_KINDS = ['bare-metal', 'vm', 'container', 'vm+container'] as const;

/** The longest text filter: a CPU model or a test name is far shorter; a longer one is a mistake. */
const MAX_TEXT = 200;
/** A machine kind's key joins 13 fields, the CPU model name (up to 200 characters) among them. */
export const MAX_MACHINE_KEY = 600;

/** Parse and check the query: every refusal names the parameter and what it takes. */
export function parseListQuery(query: Record<string, unknown>): {
  filter: ResultFilter;
  options: SearchOptions;
} {
  const unknown = Object.keys(query).filter((k) => !LIST_PARAMETERS.includes(k));
  if (unknown.length > 0)
    throw bad(`unknown parameter ${unknown.join(', ')}; the parameters are ${LIST_PARAMETERS.join(', ')}`);
  const filter: Record<string, string | number> = {};
  for (const name of TEXT_FILTERS) {
    const v = single(query, name);
    if (v === undefined) continue;
    const max = name === 'machine' ? MAX_MACHINE_KEY : MAX_TEXT;
    if (v === '' || v.length > max)
      throw bad(`${name} must be 1 to ${max} characters; leave it out to match any`);
    filter[name] = v;
  }
  if (
    filter.virtualizationKind !== undefined &&
    !(VIRTUALIZATION_KINDS as readonly string[]).includes(String(filter.virtualizationKind))
  )
    throw bad(
      `virtualizationKind ${JSON.stringify(filter.virtualizationKind)} is not one of ${VIRTUALIZATION_KINDS.join(', ')}`,
    );
  for (const name of INTEGER_FILTERS) {
    const v = single(query, name);
    if (v !== undefined) filter[name] = integer(name, v, 1, Number.MAX_SAFE_INTEGER);
  }
  const limit = single(query, 'limit');
  const cursor = single(query, 'cursor');
  return {
    filter: filter as ResultFilter,
    options: {
      ...(limit !== undefined ? { limit: integer('limit', limit, 1, MAX_SEARCH_LIMIT) } : {}),
      ...(cursor !== undefined ? { after: decodeCursor(cursor) } : {}),
    },
  };
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw bad(`${name} is given more than once; give it once`);
  return v;
}

function integer(name: string, text: string, min: number, max: number): number {
  const n = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw bad(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text.slice(0, 40))}`);
  return n;
}

function bad(message: string): HttpError {
  return new HttpError('BAD_QUERY', 400, message);
}
