import { Ajv, type ErrorObject } from 'ajv';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { HttpError } from '../http-error.js';

// The read routes' query strings and path parameters are checked by their schemas (ajv, as fastify
// checks), each refusal then put in this API's words by the route's own messages: the schema says
// what a value may be, the message what to send instead. The other routes' schemas describe only
// (swagger.ts): their bodies are the bytes a signature covers, checked by packages/db.

/**
 * The query as fastify's own validator would take it (coerceTypes 'array': `?limit=5` is the number
 * 5, a parameter given twice an array that a `string` refuses), but refusing an unknown parameter
 * rather than dropping it (removeAdditional), and keeping the value refused (verbose) for the message.
 */
const ajv = new Ajv({
  coerceTypes: 'array',
  useDefaults: true,
  removeAdditional: false,
  allErrors: false,
  verbose: true,
});

/** A route's validatorCompiler: its querystring and params checked by their schemas. */
export const checkedBySchema: FastifySchemaCompiler<object> = ({ schema }) => ajv.compile(schema);

/** The first refusal of a query or path, as ajv reports it (with the value, `data`). */
export type Refusal = ErrorObject & { data?: unknown };

/** What the route says for a refusal of its `params` or `querystring`. */
export type RefusalMessages = (refusal: Refusal, part: string) => HttpError;

/** A route's schemaErrorFormatter: the first refusal in the route's own words. */
export function refusedAs(messages: RefusalMessages) {
  return (errors: FastifySchemaValidationError[], part: string): Error =>
    messages(errors[0] as unknown as Refusal, part);
}

/** The parameter a refusal is about: `limit` for `/limit`. */
export const parameterOf = (r: Refusal): string => r.instancePath.replace(/^\//, '');

/** The refused value as a message quotes it: a string, cut short. */
export const quoted = (value: unknown, max = 80): string => JSON.stringify(String(value).slice(0, max));

/** The query parameters not in `schema`, in the order given: what an additionalProperties refusal was about. */
export function unknownParameters(r: Refusal, known: readonly string[]): string[] {
  return Object.keys((r.data ?? {}) as object).filter((k) => !known.includes(k));
}

export function bad(message: string): HttpError {
  return new HttpError('BAD_QUERY', 400, message);
}
