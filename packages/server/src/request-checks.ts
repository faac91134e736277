import type { FastifyRequest } from 'fastify';
import { HttpError } from './http-error.js';

/**
 * Refusals decided from the request head alone, before the body is parsed (an onRequest hook).
 */
export function checkRequestHead(bodyLimitBytes: number) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined)
      throw new HttpError('MISSING_HOST', 400, 'an HTTP/1.1 request needs a host header; send one');
    // The body is read as sent: a compressed one would reach ingest as "malformed JSON" (or a
    // deflate bomb would be inflated). Say what is wrong instead.
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity')
      throw new HttpError(
        'UNSUPPORTED_CONTENT_ENCODING',
        415,
        `content-encoding ${encoding} is not accepted: send the JSON uncompressed`,
      );
    const length = Number(request.headers['content-length']);
    if (length > bodyLimitBytes) {
      // Answered once the body is in, read and dropped (the request deadline bounds the wait):
      // fastify's own 413 closes the connection on a client still sending, and the reset that
      // follows can make the client lose the answer.
      await drained(request);
      throw new HttpError(
        'BODY_TOO_LARGE',
        413,
        `the body is larger than this server accepts (${bodyLimitBytes} bytes)`,
      );
    }
  };
}

/** The rest of a request's body, read and dropped (the request deadline bounds the wait). */
export function drained(request: FastifyRequest): Promise<void> {
  const raw = request.raw;
  if (raw.complete) return Promise.resolve();
  return new Promise((resolve) => {
    raw.once('end', resolve);
    raw.once('close', resolve);
    raw.resume();
  });
}
