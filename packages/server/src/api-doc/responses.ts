// The pieces every route's schema is made of: the answers all routes share, and the shapes of a
// signed body and of a result id. Each route's own schema sits beside its handler (routes/); the
// OpenAPI document is generated from them (swagger.ts), the shared components from components.ts.

/** An error answer: `{ error: { code, message } }` (components.ts), with what it means here. */
export const error = (description: string) => ({ $ref: 'Error#', description });
/** A JSON object answer, described in words. */
export const object = (description: string) => ({ type: 'object', description });

/** What every API route can answer whatever it is asked: the checks of the request's head, the limit. */
export const ANY = {
  400: error('a malformed request: the message says which part (MISSING_HOST, BAD_URL, BAD_QUERY, ...)'),
  429: error('RATE_LIMITED: more requests from this network than --per-ip-per-minute; retry-after says when'),
  500: error('INTERNAL_ERROR: a fault of the service; its log has the details'),
};
/** What a route that takes a body can answer besides. */
export const BODY = {
  413: error('BODY_TOO_LARGE: larger than the service accepts'),
  415: error('UNSUPPORTED_MEDIA_TYPE or UNSUPPORTED_CONTENT_ENCODING: send application/json, uncompressed'),
};
/** What a route that writes to the database can answer besides. */
export const WRITE = {
  503: error('NOT_WRITABLE: the database cannot be written now (read-only); retry-after says when'),
  507: error('INSUFFICIENT_STORAGE: the disk is below the free space the service keeps'),
};
/** What a read answers besides: it runs on a bounded queue (ReadPool). */
export const READ = {
  ...ANY,
  503: error('BUSY: too many reads waiting, from this network or all; retry-after says when'),
};

/**
 * A signed body, described only: the route takes it as the bytes the signature covers (app.ts), and
 * its checks (db ingest, retract, key statements) say what is wrong with it in this API's codes.
 */
export const signed = (description: string) => ({ type: 'object', description });

/** `:id`, a result's id. Described only: a path that is no id is a result not found (404), not a 400. */
export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'the result id' } },
};

/** A route the document leaves out: the 405 answers, the site's files. */
export const HIDDEN = { hide: true };
