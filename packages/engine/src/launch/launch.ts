/**
 * Starts throwaway redis-server (or valkey-server) processes: for tests, for the CLI when nothing
 * answers on 127.0.0.1:6379, and to benchmark several server binaries side by side.
 *
 * Each server gets benchmark-safe defaults (loopback only, no persistence, a fresh temp `dir`),
 * logs to stdout which we read, and is SIGKILLed if the Node process exits while it runs. Any number
 * may run at once; stopServers() stops a set of them.
 */

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serverArgs, shellCommand } from './args.js';
import { findServerBinary, installHint, readServerVersion } from './binary.js';
import { type ChildExit, ServerChild } from './children.js';
import { ServerLaunchError } from './errors.js';
import {
  DEFAULT_LAUNCH_OPTIONS,
  type LaunchOptions,
  PORT_RETRIES,
  picksPort,
  validateLaunchOptions,
} from './options.js';
import { pickFreePort } from './ports.js';
import {
  describeTarget,
  type ListenerTarget,
  type ReadyOutcome,
  ServerLog,
  waitConnectable,
  waitForReadyLine,
} from './readiness.js';

export interface LaunchedServer {
  host: '127.0.0.1';
  /** The TCP (or TLS) port; 0 when TCP is disabled (port: -1). */
  port: number;
  unixSocket?: string;
  tls: boolean;
  pid: number;
  /** The resolved path of the binary that runs. */
  bin: string;
  /** From `BIN --version` (`v=7.0.15`), 'unknown' if it could not be parsed. */
  version: string;
  /**
   * Stop with SHUTDOWN NOSAVE semantics: send SIGTERM, wait up to 5 s, then SIGKILL; resolves
   * when the process exited and its temp dir is removed; idempotent.
   */
  stop(): Promise<void>;
  /** Resolves when the process exits by itself or by stop(). */
  exited: Promise<ChildExit>;
}

/** One start of the server on one port: what it needs, fixed before it is spawned. */
interface Attempt {
  bin: string;
  version: string;
  port: number;
  opts: LaunchOptions;
  deadline: number;
}

type AttemptResult =
  | { ok: true; server: LaunchedServer }
  | { ok: false; bindFailure: boolean; error: ServerLaunchError };

const BIND_FAILURE =
  /Address already in use|Could not create server (TCP|TLS) listening socket|Failed listening on port/i;

export async function startServer(opts: LaunchOptions = {}): Promise<LaunchedServer> {
  const bin = resolveBinary(opts.bin ?? DEFAULT_LAUNCH_OPTIONS.bin);
  validateLaunchOptions(opts);
  const version = await readServerVersion(bin);
  const deadline = Date.now() + startTimeout(opts);
  for (let tries = 0; ; tries++) {
    const port = picksPort(opts) ? await pickFreePort() : opts.port === -1 ? 0 : (opts.port as number);
    const result = await launchOnce({ bin, version, port, opts, deadline });
    if (result.ok) return result.server;
    const retry = picksPort(opts) && result.bindFailure && tries < PORT_RETRIES && Date.now() < deadline;
    if (!retry) throw result.error;
  }
}

/** Stops every server given, whatever happens to the others; resolves when all are stopped. */
export async function stopServers(servers: Iterable<LaunchedServer>): Promise<void> {
  await Promise.allSettled([...servers].map((s) => s.stop()));
}

function resolveBinary(name: string): string {
  const bin = findServerBinary(name);
  if (!bin) throw new ServerLaunchError(installHint(name));
  return bin;
}

function startTimeout(opts: LaunchOptions): number {
  return opts.startTimeoutMs ?? DEFAULT_LAUNCH_OPTIONS.startTimeoutMs;
}

/** One try: spawn, wait for the ready line, check a listener answers. Fails with the command and log. */
async function launchOnce(attempt: Attempt): Promise<AttemptResult> {
  const spawned = await spawnServer(attempt);
  const outcome = await waitForReadyLine(spawned.log, spawned.child.exited, attempt.deadline);
  if (outcome !== 'ready') return failed(spawned, await notReadyReason(outcome, spawned, attempt));
  // Belt and braces: the ready line is logged once the listeners are bound; check one answers.
  const target = listenerOf(spawned, attempt);
  if (!(await waitConnectable(target, Math.max(attempt.deadline, Date.now() + 1_000)))) {
    const message = `${path.basename(attempt.bin)} logged that it is ready but ${describeTarget(target)} does not accept connections`;
    return failed(spawned, { message, bindFailure: false });
  }
  return { ok: true, server: launchedServer(spawned, attempt) };
}

/** A server process just spawned, with what it was given and what it logged so far. */
interface Spawned {
  child: ServerChild;
  log: ServerLog;
  args: string[];
  unixSocket: string | undefined;
}

interface NotReady {
  message: string;
  /** It could not bind its port: another free port may do. */
  bindFailure: boolean;
}

async function spawnServer({ bin, port, opts }: Attempt): Promise<Spawned> {
  const dir = await mkdtemp(path.join(tmpdir(), 'redis-benchdb-server-'));
  const unixSocket = opts.unixSocket ?? (opts.unixSocketInDir ? path.join(dir, 'redis.sock') : undefined);
  const args = serverArgs({ dir, port, unixSocket, tls: opts.tls, config: opts.config });
  const log = new ServerLog();
  const child = new ServerChild({ bin, args, dir, unixSocket, onLine: log.push });
  return { child, log, args, unixSocket };
}

function listenerOf({ unixSocket }: Spawned, { port, opts }: Attempt): ListenerTarget {
  return port > 0 ? { port, tls: Boolean(opts.tls) } : { path: unixSocket as string };
}

/** Stops what was spawned and returns the error to throw, with the command line and the last log lines. */
async function failed({ child, log, args }: Spawned, why: NotReady): Promise<AttemptResult> {
  await child.stop();
  const lines = [...log.lines];
  const message = `${why.message}\n${explain(child.bin, args, lines)}`;
  const error = new ServerLaunchError(message, lines, { cause: child.spawnError });
  return { ok: false, bindFailure: why.bindFailure, error };
}

async function notReadyReason(
  outcome: Exclude<ReadyOutcome, 'ready'>,
  { child, log }: Spawned,
  { bin, opts }: Attempt,
): Promise<NotReady> {
  const name = path.basename(bin);
  if (outcome === 'timeout')
    return { message: `${name} was not ready within ${startTimeout(opts)} ms`, bindFailure: false };
  const spawnError = child.spawnError;
  if (spawnError) {
    const message =
      spawnError.code === 'ENOENT'
        ? installHint(opts.bin ?? DEFAULT_LAUNCH_OPTIONS.bin)
        : `could not start ${bin}: ${spawnError.message}`;
    return { message, bindFailure: false };
  }
  const { code, signal } = await child.exited;
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  return {
    message: `${name} ${how} before it was ready`,
    bindFailure: log.lines.some((l) => BIND_FAILURE.test(l)),
  };
}

function explain(bin: string, args: readonly string[], log: readonly string[]): string {
  const tail = log.length ? `\n--- last ${log.length} log lines ---\n${log.join('\n')}` : '\n(no log output)';
  return `command: ${shellCommand(bin, args)}${tail}`;
}

function launchedServer(
  { child, unixSocket }: Spawned,
  { bin, version, port, opts }: Attempt,
): LaunchedServer {
  const server: LaunchedServer = {
    host: '127.0.0.1',
    port,
    tls: Boolean(opts.tls),
    pid: child.pid as number,
    bin,
    version,
    stop: () => child.stop(),
    exited: child.exited,
  };
  if (unixSocket) server.unixSocket = unixSocket;
  return server;
}
