import type { FastifyInstance, HTTPMethods } from 'fastify';
import { HIDDEN } from '../api-doc/responses.js';
import { HttpError } from '../http-error.js';

/**
 * Answers 405 with `allow` for a method the URL does not take (`DELETE /api/v1/results/:id`), where
 * fastify alone would answer 404 as if the URL did not exist. Call after every other route is added.
 */
export function methodNotAllowedRoutes(app: FastifyInstance): void {
  for (const [url, methods] of Object.entries(ROUTES)) {
    const others = app.supportedMethods.filter((m) => !methods.includes(m)) as HTTPMethods[];
    const allow = methods.join(', ');
    app.route({
      method: others,
      url,
      schema: HIDDEN,
      handler: async (request, reply) => {
        reply.header('allow', allow);
        throw new HttpError(
          'METHOD_NOT_ALLOWED',
          405,
          `${request.method} is not allowed on ${url}; use ${allow}`,
        );
      },
    });
  }
}

/** The service's routes (see app.ts) and their methods; fastify adds HEAD to each GET. */
export const ROUTES: Record<string, string[]> = {
  '/api/v1/results': ['GET', 'HEAD', 'POST'],
  '/api/v1/cohorts/:fingerprint': ['GET', 'HEAD'],
  '/api/v1/openapi.json': ['GET', 'HEAD'],
  '/api/v1/results/:id': ['GET', 'HEAD'],
  '/api/v1/results/:id/retract': ['POST'],
  '/api/v1/keys/rotations': ['POST'],
  '/api/v1/keys/revocations': ['POST'],
  '/api/v1/health': ['GET', 'HEAD'],
};
