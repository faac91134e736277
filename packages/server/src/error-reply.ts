import { IngestError, KeyStatementError, RetractError } from '@redis-benchdb/db';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './http-error.js';

/** Every error body: `{ error: { code, message } }`, with a code a client can switch on. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** The one place an error becomes a status code and a JSON body. */
export function replyWithError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const { status, code, message } = describe(error, request);
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  if (error instanceof HttpError && error.retryAfterSec !== undefined)
    reply.header('retry-after', String(error.retryAfterSec));
  const body: ErrorBody = { error: { code, message } };
  return reply.status(status).send(body);
}

export function replyNotFound(request: FastifyRequest, reply: FastifyReply) {
  return replyWithError(
    new HttpError('NOT_FOUND', 404, `no route ${request.method} ${request.url}`),
    request,
    reply,
  );
}

function describe(error: FastifyError | Error, request: FastifyRequest) {
  if (
    error instanceof IngestError ||
    error instanceof RetractError ||
    error instanceof KeyStatementError ||
    error instanceof HttpError
  )
    return { status: error.status, code: error.code, message: error.message };
  const e = error as FastifyError;
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return {
      status: 413,
      code: 'BODY_TOO_LARGE',
      message: `the body is larger than this server accepts (${request.routeOptions.bodyLimit} bytes)`,
    };
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return {
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `content-type ${request.headers['content-type'] ?? '(none)'} is not accepted: send application/json`,
    };
  if (e.code === 'FST_ERR_BAD_URL')
    return { status: 400, code: 'BAD_URL', message: `${e.message}; percent-encode the URL` };
  if (e.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH')
    return {
      status: 400,
      code: 'BAD_CONTENT_LENGTH',
      message: 'the body is not as long as its content-length says; send the length of the bytes sent',
    };
  const status = e.statusCode ?? 500;
  // Fastify's own codes (FST_ERR_...) name its internals; a client gets one of ours.
  if (status < 500)
    return {
      status,
      code: e.code && !e.code.startsWith('FST_') ? e.code : 'BAD_REQUEST',
      message: e.message,
    };
  // Say nothing of the internals to the client: the log (`--log`) has the stack.
  return { status: 500, code: 'INTERNAL_ERROR', message: 'internal error' };
}
