import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LaunchedServer, type LaunchOptions, startServer } from '@redis-benchdb/engine';
import { Redis } from 'ioredis';

export const CLI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The built CLI (`npx tsc -b packages/cli/tsconfig.json`, or `pnpm build`). */
export const BIN = path.join(CLI_DIR, 'dist/bin.js');

export function assertBuilt(): void {
  if (!existsSync(BIN))
    throw new Error(`${BIN} is missing: build first with npx tsc -b packages/cli/tsconfig.json`);
}

/** The production server of this machine: no test may send it anything. */
export const PRODUCTION_PORT = 6379;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  done: Promise<CliResult>;
}

/**
 * Refuses a `run` command line that could reach 127.0.0.1:6379: it must name its server with
 * -p/-s/-u, and never port 6379. (Tests that run the CLI in a network namespace bypass this.)
 */
export function guardTarget(args: readonly string[]): void {
  if (args[0] !== 'run' || args.includes('--help')) return;
  const i = args.findIndex((a) => a === '-p' || a === '--port' || a === '-s' || a === '--socket');
  if (i < 0) throw new Error(`test bug: "${args.join(' ')}" names no server (-p/-s)`);
  if (args.includes(String(PRODUCTION_PORT))) throw new Error('test bug: never point a test at port 6379');
}

/** Spawn `node bin.js ...args`; `done` resolves when it exits (SIGKILLed after timeoutMs). */
export function spawnCli(
  args: readonly string[],
  opts: { timeoutMs?: number; cwd?: string; command?: string[]; guard?: boolean } = {},
): RunningCli {
  if (opts.guard !== false) guardTarget(args);
  const [cmd, ...cmdArgs] = opts.command ?? [process.execPath, BIN];
  const started = Date.now();
  const child = spawn(cmd!, [...cmdArgs, ...args], {
    cwd: opts.cwd ?? CLI_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const done = new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `"${args.join(' ')}" did not exit within ${timeoutMs} ms\n--- stdout ---\n${out}\n--- stderr ---\n${err}`,
        ),
      );
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: out, stderr: err, ms: Date.now() - started });
    });
  });
  return { child, stdout: () => out, stderr: () => err, done };
}

export function runCli(
  args: readonly string[],
  opts: { timeoutMs?: number; cwd?: string; command?: string[]; guard?: boolean } = {},
): Promise<CliResult> {
  return spawnCli(args, opts).done;
}

/** Resolve once `cond()` is true; reject after timeoutMs with `what`. */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(25);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A port nothing listens on (bound by the OS, then released). */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen({ host: '127.0.0.1', port: 0 }, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Throwaway servers started by a test file; stop them in afterAll/afterEach with stopServers(). */
const servers: LaunchedServer[] = [];
const clients: Redis[] = [];

export async function testServer(opts: LaunchOptions = {}): Promise<LaunchedServer> {
  const server = await startServer(opts);
  servers.push(server);
  if (server.port === PRODUCTION_PORT) throw new Error('test bug: a test server got port 6379');
  return server;
}

/** An ioredis client of a test server (never of 6379). */
export async function client(server: LaunchedServer, password?: string): Promise<Redis> {
  if (server.port === PRODUCTION_PORT) throw new Error('test bug: never connect to port 6379');
  const c = new Redis({
    host: '127.0.0.1',
    port: server.port,
    ...(server.port === 0 ? { path: server.unixSocket! } : {}),
    ...(password ? { password } : {}),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  c.on('error', () => {});
  clients.push(c);
  await c.connect();
  return c;
}

export async function stopServers(): Promise<void> {
  for (const c of clients.splice(0)) c.disconnect();
  await Promise.all(servers.splice(0).map((s) => s.stop()));
}
