import { openDatabase } from '@redis-benchdb/db';
import { buildApp } from './app.js';
import type { AppOptions } from './options.js';

export interface ServeOptions extends Omit<AppOptions, 'db'> {
  /** The SQLite file; created (with its directory) and migrated if need be. */
  dbPath: string;
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 0 */
  port?: number;
}

export const DEFAULT_SERVE_OPTIONS = { host: '127.0.0.1', port: 0 } as const;

export interface RunningServer {
  /** `http://host:port`, without a trailing slash. */
  url: string;
  port: number;
  /** Stop accepting, finish the requests in flight, then close the database. */
  close(): Promise<void>;
}

/** Open the database, build the app and listen. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const { dbPath, host, port, ...appOptions } = { ...DEFAULT_SERVE_OPTIONS, ...options };
  const db = openDatabase(dbPath);
  const app = buildApp({ ...appOptions, db });
  try {
    await app.listen({ host, port });
  } catch (e) {
    await app.close();
    db.close();
    throw e;
  }
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error(`unexpected address ${address}`);
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    // Idempotent: a signal and the caller may both ask.
    close: () =>
      (closing ??= app.close().finally(() => {
        db.close();
      })),
  };
}
