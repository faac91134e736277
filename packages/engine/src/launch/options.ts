import { ServerLaunchError } from './errors.js';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  caFile?: string;
  requireClientCert?: boolean;
}

export interface LaunchOptions {
  /** redis-server / valkey-server binary. @default 'redis-server' (from PATH) */
  bin?: string;
  /**
   * TCP port; 0 or undefined = pick a free port (and retry with another one, up to 5 times, if
   * the server then fails to bind it). Use port: -1 to disable TCP (port 0 in redis config).
   */
  port?: number;
  /** Also listen on this unix socket path (unixsocketperm 700). */
  unixSocket?: string;
  /**
   * Also listen on a unix socket `redis.sock` inside the server's own temp dir (removed with it):
   * no path to choose or clean up. Ignored when unixSocket is given.
   */
  unixSocketInDir?: boolean;
  /**
   * TLS: serve TLS on the chosen port instead of plain TCP (tls-port N, port 0), with these PEM
   * file paths. tls-auth-clients no unless caFile given and requireClientCert.
   */
  tls?: TlsFiles;
  /** Extra config lines, e.g. ['io-threads 2', 'requirepass secret'] — each 'name value...' becomes --name value... args. */
  config?: string[];
  /** ms to wait for the server to be ready. @default 10000 */
  startTimeoutMs?: number;
}

export const DEFAULT_LAUNCH_OPTIONS = {
  bin: 'redis-server',
  startTimeoutMs: 10_000,
} as const satisfies LaunchOptions;

/** Free-port picks retried when the server then finds its port taken (another process got it first). */
export const PORT_RETRIES = 5;

/** Throws a ServerLaunchError for options that cannot describe a server; returns nothing. */
export function validateLaunchOptions(opts: LaunchOptions): void {
  if (opts.port !== undefined && (!Number.isInteger(opts.port) || opts.port < -1 || opts.port > 65535)) {
    throw new ServerLaunchError(`invalid port ${opts.port}: use 1-65535, 0 for a free port or -1 for none`);
  }
  if (opts.port === -1 && opts.tls) {
    throw new ServerLaunchError('tls needs a TCP port: do not combine tls with port: -1');
  }
  if (opts.port === -1 && !opts.unixSocket && !opts.unixSocketInDir) {
    throw new ServerLaunchError('port: -1 disables TCP, so a unixSocket path is required');
  }
}

/** True when the launcher picks the port (and may pick another one if the server cannot bind it). */
export function picksPort(opts: LaunchOptions): boolean {
  return opts.port === undefined || opts.port === 0;
}
