// The service's edge against raw sockets: request deadlines that hold, and every refusal, including
// those Node's HTTP parser makes before a route runs, as a 4xx with `{ error: { code, message } }`.
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, type ServeOptions, startServer } from '../dist/index.js';
import { tempDbPath } from './fixtures.js';
import { type RawReply, rawRequest, trickle } from './raw-http.js';

const running: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function service(opts: Omit<ServeOptions, 'dbPath'> = {}): Promise<RunningServer> {
  const server = await startServer({ dbPath: tempDbPath(), ...opts });
  running.push(server);
  return server;
}

function expectErrorShape(reply: RawReply, status: number, code: string): void {
  expect({ status: reply.status, code: reply.json?.error?.code }, reply.text.slice(0, 500)).toEqual({
    status,
    code,
  });
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(reply.json ?? {})).toEqual(['error']);
  expect(Object.keys(reply.json!.error!).sort()).toEqual(['code', 'message']);
  expect(reply.json!.error!.message.length).toBeGreaterThan(10);
}

describe('the request deadline covers headers and body together', () => {
  // A 2 s deadline against a request trickled a byte every 500 ms (often enough that the idle
  // timeout, also 2 s, never fires: only the deadline can cut it), which would take 60 s to arrive.
  // The assertion is on how much got through before the cut, not on a clock: 40 bytes is 10 times
  // the deadline, room for a busy machine, while the old code (Node checks deadlines every 30 s by
  // default) let about 60 through.
  const DEADLINE_MS = 2000;
  const EVERY_MS = 500;
  const TAIL = 120;

  it('cuts a trickled body with a 408 at the deadline', async () => {
    const s = await service({ requestTimeoutMs: DEADLINE_MS });
    const head =
      'POST /api/v1/results HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
      `content-length: ${TAIL}\r\n\r\n`;
    const { sent, reply } = await trickle(s.port, head, ' '.repeat(TAIL), EVERY_MS);
    expect(sent).toBeLessThan(40);
    expectErrorShape(reply, 408, 'REQUEST_TIMEOUT');
    expect(reply.json?.error?.message).toContain(`${DEADLINE_MS} ms`);
    expect(reply.headers.connection).toBe('close');
  });

  it('cuts trickled headers with a 408 at the deadline', async () => {
    const s = await service({ requestTimeoutMs: DEADLINE_MS });
    const head = 'POST /api/v1/results HTTP/1.1\r\nhost: 127.0.0.1\r\n';
    const tail = `x-slow: ${'a'.repeat(TAIL - 12)}\r\n\r\n`;
    const { sent, reply } = await trickle(s.port, head, tail, EVERY_MS);
    expect(sent).toBeLessThan(40);
    expectErrorShape(reply, 408, 'REQUEST_TIMEOUT');
  });

  it('still takes a request that arrives whole within the deadline', async () => {
    const s = await service({ requestTimeoutMs: DEADLINE_MS });
    const reply = await rawRequest(s.port, 'GET /api/v1/health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ ok: true, results: 0 });
  });
});

describe('every refusal is a 4xx in the documented shape', () => {
  const post = (headers: string, body: string) =>
    `POST /api/v1/results HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const cases: { name: string; request: string; status: number; code: string }[] = [
    { name: 'a request line that is not HTTP', request: 'GARBAGE\r\n\r\n', status: 400, code: 'BAD_REQUEST' },
    {
      name: 'an unknown method',
      request: 'BREW /api/v1/health HTTP/1.1\r\nhost: x\r\n\r\n',
      status: 400,
      code: 'BAD_REQUEST',
    },
    {
      name: 'a header line without a colon',
      request: 'GET /api/v1/health HTTP/1.1\r\nhost: x\r\nnot a header\r\n\r\n',
      status: 400,
      code: 'BAD_REQUEST',
    },
    {
      name: 'two content-lengths',
      request: `POST /api/v1/results HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}`,
      status: 400,
      code: 'BAD_REQUEST',
    },
    {
      name: 'headers over 16 KiB',
      request: `GET /api/v1/health HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
      status: 431,
      code: 'HEADERS_TOO_LARGE',
    },
    {
      name: 'an HTTP/1.1 request without host',
      request: 'GET /api/v1/health HTTP/1.1\r\n\r\n',
      status: 400,
      code: 'MISSING_HOST',
    },
    {
      name: 'a URL that does not decode',
      request: 'GET /api/v1/results/%zz HTTP/1.1\r\nhost: x\r\n\r\n',
      status: 400,
      code: 'BAD_URL',
    },
    {
      name: 'a body over the limit',
      request: post('content-type: application/json\r\n', `"${'a'.repeat(5000)}"`),
      status: 413,
      code: 'BODY_TOO_LARGE',
    },
    {
      name: 'a chunked body over the limit',
      request:
        'POST /api/v1/results HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n' +
        `1388\r\n${'a'.repeat(5000)}\r\n0\r\n\r\n`,
      status: 413,
      code: 'BODY_TOO_LARGE',
    },
    {
      name: 'another content type',
      request: post('content-type: text/plain\r\n', '{}'),
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    },
    {
      name: 'no content type',
      request: post('', '{}'),
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    },
    {
      name: 'a gzip content-encoding',
      request: post('content-type: application/json\r\ncontent-encoding: gzip\r\n', '{}'),
      status: 415,
      code: 'UNSUPPORTED_CONTENT_ENCODING',
    },
    {
      name: 'an unknown path',
      request: 'GET /nope HTTP/1.1\r\nhost: x\r\n\r\n',
      status: 404,
      code: 'NOT_FOUND',
    },
    {
      name: 'a method the URL does not take',
      request: `DELETE /api/v1/results/${'0'.repeat(64)} HTTP/1.1\r\nhost: x\r\n\r\n`,
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
    },
    {
      name: 'PUT on the submission URL',
      request: 'PUT /api/v1/results HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n',
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
    },
  ];

  let s: RunningServer;
  it.each(cases)('$name: $status $code', async ({ request, status, code }) => {
    s ??= await service({ bodyLimitBytes: 1000 });
    const reply = await rawRequest(s.port, request);
    expectErrorShape(reply, status, code);
    if (status === 405) expect(reply.headers.allow).toMatch(/^(GET, HEAD, POST|GET, HEAD)$/);
  });

  it('answers on a socket once, however much garbage follows', async () => {
    s ??= await service({ bodyLimitBytes: 1000 });
    const reply = await rawRequest(s.port, `GARBAGE\r\n\r\n${'MORE GARBAGE\r\n'.repeat(1000)}`);
    expectErrorShape(reply, 400, 'BAD_REQUEST');
    expect(reply.text.match(/^HTTP\/1\.1 \d{3} /gm)).toHaveLength(1);
  });
});
