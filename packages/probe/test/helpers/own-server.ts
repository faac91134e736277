import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// probe imports no Redis client; its tests borrow the engine's.
import { Redis } from '../../../engine/node_modules/ioredis/built/index.js';
import type { ServerCommands } from '../../src/server.js';

/**
 * A server started by the test itself, not by redis-benchdb's launcher: the case of a server the
 * runner did not launch. It listens only on a unix socket in its own temp dir, so no port is
 * picked or raced for, and nothing reaches the server on 6379.
 */
export interface OwnServer {
  redis: Redis;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * What probe asks of a server, from an ioredis client: plain functions, as the CLI passes them
 * (runner/src/environment.ts). ioredis's own methods take callbacks too, so they are not these types.
 */
export function serverCommands(redis: Redis): ServerCommands {
  return {
    info: (section) => (section === undefined ? redis.info() : redis.info(section)),
    config: (...args) => redis.call('CONFIG', ...args),
    client: (...args) => redis.call('CLIENT', ...args),
  };
}

export async function startOwnServer(bin: string): Promise<OwnServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-own-server-'));
  const socket = join(dir, 's.sock');
  const child = spawn(
    bin,
    ['--port', '0', '--unixsocket', socket, '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let exited = false;
  let stderr = '';
  child.stderr?.on('data', (c) => (stderr += c));
  const gone = new Promise<void>((ok) =>
    child.once('exit', () => {
      exited = true;
      ok();
    }),
  );
  // ioredis retries until the socket exists; a server that dies on start ends the wait.
  const redis = new Redis({ path: socket, maxRetriesPerRequest: null, retryStrategy: () => 20 });
  // Refused connections are expected until the server has created its socket.
  redis.on('error', () => {});
  const ready = redis.ping();
  await Promise.race([
    ready,
    gone.then(() => {
      redis.disconnect();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`${bin} exited on start: ${stderr}`);
    }),
  ]);
  return {
    redis,
    child,
    async stop() {
      redis.disconnect();
      if (!exited) {
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
