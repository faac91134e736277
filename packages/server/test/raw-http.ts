// HTTP over a bare TCP socket: for requests an HTTP client refuses to send (a bad request line,
// headers over the limit, a body trickled a byte at a time) and replies it would hide.
import { connect, type Socket } from 'node:net';

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  /** The reply's body parsed as JSON (undefined when it is not). */
  json: { error?: { code: string; message: string } } | undefined;
  /** Everything the server sent, one character per byte (latin1). */
  text: string;
  /** The whole body (by content-length) is in. */
  complete: boolean;
}

/** Parse the first response in `text` (headers lowercased). */
export function parseReply(text: string): RawReply {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const bodyBytes = text.slice(end + 4, end + 4 + length);
  const bodyText = Buffer.from(bodyBytes, 'latin1').toString('utf8');
  let json: RawReply['json'];
  try {
    json = JSON.parse(bodyText);
  } catch {}
  return { status, headers, json, text, complete: bodyBytes.length >= length };
}

export interface RawConnection {
  socket: Socket;
  /** Resolves with all the server sent once the connection closes (either side). */
  closed: Promise<string>;
}

/** A connection to 127.0.0.1:port that collects what the server sends until it closes. */
export function rawConnection(port: number): RawConnection {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (s: string) => {
    received += s;
  });
  // A reset after the reply is the server closing on a client that is still writing: not a failure.
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  return { socket, closed };
}

/** Send `request` in one write, then read until the server closes or sends a whole response. */
export async function rawRequest(port: number, request: string | Buffer): Promise<RawReply> {
  const c = rawConnection(port);
  // Close our side once a whole response is in, so that a keep-alive reply does not wait out the idle timeout.
  let text = '';
  c.socket.on('data', (s: string) => {
    text += s;
    if (text.includes('\r\n\r\n') && parseReply(text).complete) c.socket.end();
  });
  c.socket.write(request);
  return parseReply(await c.closed);
}

export interface Trickle {
  /** Bytes written before the server closed the connection. */
  sent: number;
  reply: RawReply;
}

/**
 * Write `head` at once, then `tail` one byte per `everyMs`, until the tail is out or the server
 * closes. Bounded by the tail's length: the longest it can take is `tail.length × everyMs`.
 */
export async function trickle(port: number, head: string, tail: string, everyMs: number): Promise<Trickle> {
  const c = rawConnection(port);
  c.socket.write(head);
  let sent = 0;
  let open = true;
  c.closed.then(() => {
    open = false;
  });
  const timer = setInterval(() => {
    if (!open) return clearInterval(timer);
    c.socket.write(tail[sent]!);
    sent++;
    // All sent: the server answers, and closes once we have closed our side.
    if (sent === tail.length) {
      clearInterval(timer);
      c.socket.end();
    }
  }, everyMs);
  const text = await c.closed;
  clearInterval(timer);
  return { sent, reply: parseReply(text) };
}
