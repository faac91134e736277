import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ErrorBody } from './error-reply.js';

/** What Node's HTTP parser refused, as the status, code and message every other refusal uses. */
export function describeClientError(
  error: Error & { code?: string; reason?: string },
  requestTimeoutMs: number,
): { status: number; code: string; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      status: 408,
      code: 'REQUEST_TIMEOUT',
      message: `the request (headers and body) did not arrive within ${requestTimeoutMs} ms; send it whole, without pauses`,
    };
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return {
      status: 431,
      code: 'HEADERS_TOO_LARGE',
      message: 'the request line and headers exceed 16 KiB; send fewer or shorter headers',
    };
  // llhttp's reason says what it choked on ("Invalid method encountered", "Missing expected CR after header value").
  const why = error.reason ?? error.message;
  return {
    status: 400,
    code: 'BAD_REQUEST',
    message: `not a valid HTTP/1.1 request (${error.code ?? 'parse error'}: ${why}); send a well-formed request`,
  };
}

/**
 * Fastify's `clientErrorHandler`. Node's HTTP layer answers what it cannot parse, and a request that
 * overran the deadline, before any route sees it; fastify's default reply has a shape of its own
 * (`{error, message, statusCode}`). This one writes the documented `{ error: { code, message } }`.
 */
export function clientErrorHandler(requestTimeoutMs: number) {
  // The parser may fail again on what follows its first error: the socket is answered once.
  const answered = new WeakSet<Socket>();
  return function onClientError(
    this: FastifyInstance,
    error: Error & { code?: string; reason?: string },
    socket: Socket,
  ): void {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    const { status, code, message } = describeClientError(error, requestTimeoutMs);
    this.log.info({ err: error }, `client error ${status} ${code}`);
    // A response already under way on this socket would be corrupted by a second one: just close.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const body: ErrorBody = { error: { code, message } };
      const text = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
          `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
    }
    // end(), not destroy(): the reply is flushed and followed by a FIN. Whatever the client still
    // sends is read and dropped (a close with unread bytes would send a reset, and a reset can make
    // the client lose the reply), and the socket is destroyed once the client closes its side or
    // after a short grace, so a client that never stops writing cannot keep it.
    socket.end();
    socket.resume();
    socket.setTimeout(0);
    const grace = setTimeout(() => socket.destroy(), Math.min(requestTimeoutMs, 1000));
    grace.unref();
    socket.once('close', () => clearTimeout(grace));
  };
}
