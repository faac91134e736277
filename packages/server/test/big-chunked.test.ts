// Issue 30 item 10 on the real service: a 100 MB chunked body (no content-length to refuse it by) is
// answered 413 in the error shape, not cut off with a connection reset that loses the answer.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawnService, tempDbPath } from './fixtures.js';

const MB = 1024 * 1024;

/**
 * POST `total` bytes chunked on a raw socket that reads nothing until it has sent them all, as a
 * simple client does (curl reads as it goes, and so sees the answer before any reset). Resolves with
 * the status line's code, or the socket's error.
 */
function postChunked(url: string, total: number) {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: number | string; text: string }>((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.pause();
    let text = '';
    socket.on('error', (e: NodeJS.ErrnoException) => resolve({ status: e.code ?? 'error', text }));
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    const chunk = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 0x61), Buffer.from('\r\n')]);
    let sent = 0;
    const write = () => {
      while (sent < total) {
        sent += 0x10000;
        if (!socket.write(chunk)) return void socket.once('drain', write);
      }
      socket.write('0\r\n\r\n', () => socket.resume());
    };
    socket.once('connect', () => {
      socket.write(
        'POST /api/v1/results HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n',
      );
      write();
    });
  });
}

describe('a body far over the limit, chunked', () => {
  it('100 MB chunked: 413 BODY_TOO_LARGE, answered, not reset', async () => {
    const service = await spawnService(tempDbPath());
    const reply = await postChunked(`${service.url}/api/v1/results`, 100 * MB);
    // Today's code reset the connection (ECONNRESET or EPIPE) before the client read any answer.
    expect(reply.status, reply.text.slice(0, 300)).toBe(413);
    expect(reply.text).toContain('"code":"BODY_TOO_LARGE"');
    service.child.kill('SIGTERM');
    await service.exited;
  });
});
