import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  findServerBinary,
  type LaunchedServer,
  type LaunchOptions,
  ServerLaunchError,
  startServer,
} from '../../src/launch/index.js';
import { makeTestCertificates } from '../helpers/tls.js';

const started: LaunchedServer[] = [];
const scratchDirs: string[] = [];

async function launch(opts?: LaunchOptions): Promise<LaunchedServer> {
  const server = await startServer(opts);
  started.push(server);
  expect(server.port).not.toBe(6379);
  return server;
}

async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rbdb-t-'));
  scratchDirs.push(dir);
  return dir;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

afterAll(async () => {
  await Promise.all(scratchDirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/**
 * Sends `payload` on a fresh connection and resolves with the first reply line, or
 * 'error:CODE' / 'closed' if the connection ends without one. No timer: a server that neither
 * answers nor closes fails the test at vitest's timeout, not at a guess of how slow the machine is.
 */
function firstLine(connect: () => net.Socket, payload = 'PING\r\n'): Promise<string> {
  return new Promise((resolve) => {
    let buf = '';
    let settled = false;
    const done = (v: string) => {
      if (settled) return;
      settled = true;
      sock.destroy();
      resolve(v);
    };
    const sock = connect();
    sock.setEncoding('utf8');
    sock.on('data', (chunk: string) => {
      buf += chunk;
      const i = buf.indexOf('\r\n');
      if (i >= 0) done(buf.slice(0, i));
    });
    sock.once('error', (err: NodeJS.ErrnoException) => done(`error:${err.code ?? err.message}`));
    sock.once('close', () => done('closed'));
    const write = () => sock.write(payload);
    if (sock instanceof tls.TLSSocket) sock.once('secureConnect', write);
    else sock.once('connect', write);
  });
}

const tcp = (port: number) => () => net.connect({ host: '127.0.0.1', port });

describe('startServer', () => {
  it('finds redis-server on PATH', () => {
    expect(findServerBinary()).toMatch(/redis-server$/);
    expect(findServerBinary('no-such-server-binary-xyz')).toBeNull();
  });

  it('starts on a free port with benchmark-safe config', async () => {
    const server = await launch();
    expect(server.host).toBe('127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
    expect(server.tls).toBe(false);
    expect(server.pid).toBeGreaterThan(0);
    expect(server.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(await firstLine(tcp(server.port))).toBe('+PONG');

    const client = new Redis({ host: server.host, port: server.port, lazyConnect: true });
    try {
      await client.connect();
      expect(await client.config('GET', 'save')).toEqual(['save', '']);
      expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
      expect(await client.config('GET', 'protected-mode')).toEqual(['protected-mode', 'no']);
      expect(await client.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);
    } finally {
      client.disconnect();
    }
  });

  it('stop() ends the process, frees the port and removes the temp dir', async () => {
    const server = await launch();
    const client = new Redis({ host: server.host, port: server.port, lazyConnect: true });
    let dir: string;
    try {
      await client.connect();
      const reply = (await client.config('GET', 'dir')) as string[];
      dir = reply[1]!;
    } finally {
      client.disconnect();
    }
    expect((await stat(dir)).isDirectory()).toBe(true);

    await server.stop();
    const exit = await server.exited;
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
    expect(() => process.kill(server.pid, 0)).toThrow();
    expect(await firstLine(tcp(server.port))).toBe('error:ECONNREFUSED');
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
    await server.stop(); // idempotent
  });

  it('exited resolves when the server goes away by itself', async () => {
    const server = await launch();
    expect(await firstLine(tcp(server.port), 'SHUTDOWN NOSAVE\r\n')).toBe('closed');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    await server.stop();
  });

  it('listens on a unix socket, with or without TCP', async () => {
    const dir = await scratchDir();
    const sockA = path.join(dir, 'a.sock');
    const both = await launch({ unixSocket: sockA });
    expect(both.unixSocket).toBe(sockA);
    expect(await firstLine(() => net.connect({ path: sockA }))).toBe('+PONG');
    expect(await firstLine(tcp(both.port))).toBe('+PONG');
    expect((await stat(sockA)).mode & 0o777).toBe(0o700);

    const sockB = path.join(dir, 'b.sock');
    const unixOnly = await launch({ port: -1, unixSocket: sockB });
    expect(unixOnly.port).toBe(0);
    expect(await firstLine(() => net.connect({ path: sockB }))).toBe('+PONG');

    await unixOnly.stop();
    await expect(stat(sockB)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  describe('TLS', () => {
    let certs: { caFile: string; certFile: string; keyFile: string };
    beforeAll(async () => {
      certs = await makeTestCertificates(await scratchDir());
    });

    const tlsTo =
      (port: number, extra: tls.ConnectionOptions = {}) =>
      () =>
        tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ...extra });

    it('serves TLS instead of plain TCP', async () => {
      const server = await launch({ tls: { certFile: certs.certFile, keyFile: certs.keyFile } });
      expect(server.tls).toBe(true);
      expect(await firstLine(tlsTo(server.port, { ca: await readFile(certs.caFile) }))).toBe('+PONG');
      expect(await firstLine(tcp(server.port))).not.toBe('+PONG');
    });

    it('requires a client certificate when asked to', async () => {
      const server = await launch({ tls: { ...certs, requireClientCert: true } });
      const ca = await readFile(certs.caFile);
      expect(await firstLine(tlsTo(server.port, { ca }))).not.toBe('+PONG');
      const cert = await readFile(certs.certFile);
      const key = await readFile(certs.keyFile);
      expect(await firstLine(tlsTo(server.port, { ca, cert, key }))).toBe('+PONG');
    });
  });

  it('applies config lines after the defaults', async () => {
    const server = await launch({ config: ['requirepass s3cret', 'save "900 1"'] });
    expect(await firstLine(tcp(server.port))).toMatch(/^-NOAUTH/);
    expect(await firstLine(tcp(server.port), 'AUTH s3cret\r\nPING\r\n')).toBe('+OK');
    const client = new Redis({ host: server.host, port: server.port, password: 's3cret', lazyConnect: true });
    try {
      await client.connect();
      expect(await client.config('GET', 'save')).toEqual(['save', '900 1']);
    } finally {
      client.disconnect();
    }
  });

  it('rejects with an install hint when the binary is missing', async () => {
    const err = await startServer({ bin: 'redis-server-not-installed-xyz' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerLaunchError);
    expect((err as ServerLaunchError).code).toBe('ERR_SERVER_LAUNCH');
    expect((err as Error).message).toContain('sudo apt-get install redis-server');
    expect((err as Error).message).toContain('--server-bin PATH');
  });

  it('rejects with the command and log when the server refuses its config', async () => {
    const err = await startServer({ config: ['no-such-directive 1'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerLaunchError);
    const msg = (err as Error).message;
    expect(msg).toContain('redis-server');
    expect(msg).toContain('--no-such-directive 1');
    expect(msg).toMatch(/Bad directive or wrong number of arguments/);
  });

  it('does not move an explicitly requested port that is busy', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const err = await startServer({ port }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerLaunchError);
      expect((err as Error).message).toContain(`--port ${port}`);
      expect((err as Error).message).toContain('Address already in use');
    } finally {
      blocker.close();
    }
  });

  it('gives concurrently started servers different ports', async () => {
    const [a, b] = await Promise.all([launch(), launch()]);
    expect(a.port).not.toBe(b.port);
    expect(a.pid).not.toBe(b.pid);
    expect(await firstLine(tcp(a.port))).toBe('+PONG');
    expect(await firstLine(tcp(b.port))).toBe('+PONG');
  });
});
