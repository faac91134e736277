import net from 'node:net';
import { findServerBinary, type LaunchedServer, startServer } from '@redis-benchdb/engine';
import { RunnerError } from './errors.js';

/** Does anything accept TCP connections at host:port? */
export function isListening(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Start a throwaway redis-server from PATH for a run that named no server and found none. */
export async function startThrowawayServer(): Promise<LaunchedServer> {
  if (!findServerBinary('redis-server')) {
    throw new RunnerError(
      'nothing answers on 127.0.0.1:6379 and no redis-server is on PATH to start one. Install Redis (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), or point -h/-p/-s at a running server.',
      'ERR_NO_SERVER',
    );
  }
  return startServer();
}
