import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LaunchedServer, type LaunchOptions, startServer } from '@redis-benchdb/engine';
import type { EnvelopeV1, ResultV1 } from '@redis-benchdb/result';
import { Redis } from 'ioredis';
import { afterAll, afterEach } from 'vitest';

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

/** Commands that connect to a server: their command lines must name a test server. */
const CONNECTING_COMMANDS = new Set(['run', 'sysinfo']);

/** The value of a flag given as `-p 7000`, `-p7000`, `--port 7000` or `--port=7000`. */
function flagValues(args: readonly string[], short: string, long: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === short || a === long) {
      if (i + 1 < args.length) out.push(args[i + 1]!);
    } else if (a.startsWith(`${long}=`)) out.push(a.slice(long.length + 1));
    else if (a.startsWith(short) && !a.startsWith('--') && a.length > short.length)
      out.push(a.slice(short.length));
  }
  return out;
}

/**
 * Refuses a `run` or `sysinfo` command line that could reach 127.0.0.1:6379: it must name its
 * server with -p/-s (or -u with an explicit port), and never port 6379. `sysinfo --no-server` is
 * held to the same rule, so a bug in it cannot reach the production server either. (Tests that
 * run the CLI in a network namespace, where 6379 is nobody's, bypass this with guard: false.)
 */
export function guardTarget(args: readonly string[]): void {
  if (!CONNECTING_COMMANDS.has(args[0] ?? '') || args.includes('--help')) return;
  const ports = flagValues(args, '-p', '--port');
  const sockets = flagValues(args, '-s', '--socket');
  const uriPorts = flagValues(args, '-u', '--uri').map((u) => {
    try {
      return new URL(u).port;
    } catch {
      return '';
    }
  });
  // --server-bin starts its own servers on free ports (never 6379: the launcher asks the OS for one).
  const launched = flagValues(args, '--server-bin', '--server-bin');
  if (ports.length + sockets.length + uriPorts.length + launched.length === 0)
    throw new Error(`test bug: "${args.join(' ')}" names no server (-p/-s/-u/--server-bin)`);
  if (uriPorts.some((p) => p === '' || p === String(PRODUCTION_PORT)))
    throw new Error('test bug: a -u URI must name its port, and never 6379');
  if (ports.some((p) => Number(p) === PRODUCTION_PORT) || args.includes(String(PRODUCTION_PORT)))
    throw new Error('test bug: never point a test at port 6379');
}

/**
 * The config directory (REDIS_BENCHDB_CONFIG_DIR) of every CLI this test process spawns unless a
 * test passes its own: a fresh temp dir, so no test reads or writes ~/.config/redis-benchdb.
 */
let sharedConfigDir: string | null = null;
export function defaultConfigDir(): string {
  if (!sharedConfigDir) {
    const dir = mkdtempSync(path.join(tmpdir(), 'rbdb-config-'));
    // Removed by removeTempDirs(); this is for a test file that ends without calling it.
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    sharedConfigDir = dir;
  }
  return sharedConfigDir;
}

/** Temp dirs made by tempDir(); removed by removeTempDirs() (call it in afterAll). */
const tempDirs: string[] = [];

export async function tempDir(prefix = 'rbdb-cli-'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  const dirs = tempDirs.splice(0);
  if (sharedConfigDir) dirs.push(sharedConfigDir);
  sharedConfigDir = null;
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
}

export interface SpawnOptions {
  cwd?: string;
  command?: string[];
  guard?: boolean;
  /** REDIS_BENCHDB_CONFIG_DIR for this CLI (where its signing key lives); default defaultConfigDir(). */
  configDir?: string;
  /** Extra environment variables (e.g. a PATH without taskset). */
  env?: Record<string, string>;
}

// No test waits on a clock: a CLI runs until it exits, a wait until its condition holds, and
// vitest's timeout (vitest.config.ts) is the only guard against a hang. What a test left running
// when it gave up is killed when its file ends, by the pid this helper started, with its output.
const running = new Set<{ args: readonly string[]; child: ChildProcess; out(): string }>();
afterAll(() => {
  for (const r of running) {
    r.child.kill('SIGKILL');
    process.stderr.write(
      `killed "${r.args.join(' ')}" (pid ${r.child.pid}), still running at the end of its file\n${r.out()}\n`,
    );
  }
  running.clear();
});
/** Bumped after each test, so a wait the test abandoned (vitest's timeout) stops polling. */
let testsEnded = 0;
afterEach(() => {
  testsEnded++;
});

/** Spawn `node bin.js ...args`; `done` resolves when it exits. */
export function spawnCli(args: readonly string[], opts: SpawnOptions = {}): RunningCli {
  if (opts.guard !== false) guardTarget(args);
  const [cmd, ...cmdArgs] = opts.command ?? [process.execPath, BIN];
  const started = Date.now();
  const child = spawn(cmd!, [...cmdArgs, ...args], {
    cwd: opts.cwd ?? CLI_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NO_COLOR: '1',
      REDIS_BENCHDB_CONFIG_DIR: opts.configDir ?? defaultConfigDir(),
      // Belt and braces: were the variable above ignored, the fallback is a temp dir too.
      XDG_CONFIG_HOME: path.join(opts.configDir ?? defaultConfigDir(), 'xdg'),
      // The local database (and the spool beside it) of `run`, `import`, `submit`: never the user's.
      REDIS_BENCHDB_DB: path.join(opts.configDir ?? defaultConfigDir(), 'data', 'benchdb.sqlite'),
      XDG_DATA_HOME: path.join(opts.configDir ?? defaultConfigDir(), 'xdg-data'),
      REDIS_BENCHDB_SERVER: '',
      ...opts.env,
    },
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  const entry = { args, child, out: () => `--- stdout ---\n${out}\n--- stderr ---\n${err}` };
  running.add(entry);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', (e) => {
      running.delete(entry);
      reject(e);
    });
    child.once('close', (code, signal) => {
      running.delete(entry);
      resolve({ code, signal, stdout: out, stderr: err, ms: Date.now() - started });
    });
  });
  return { child, stdout: () => out, stderr: () => err, done };
}

export function runCli(args: readonly string[], opts: SpawnOptions = {}): Promise<CliResult> {
  return spawnCli(args, opts).done;
}

/**
 * Resolve once `cond()` is true, however long the machine takes; `cond` throws to fail early (a run
 * that ended). Should the test time out first, the wait stops, saying what it was waiting for.
 */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  what: string | (() => string),
): Promise<void> {
  const test = testsEnded;
  for (;;) {
    if (await cond()) return;
    if (testsEnded !== test)
      throw new Error(`gave up waiting for ${typeof what === 'string' ? what : what()}: the test ended`);
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

// The default address: with no -h/-p/-s, the CLI talks to 127.0.0.1:6379, the production server
// on this machine. Tests of that default run the CLI in a new network namespace that has only a
// loopback interface, where nothing listens on 6379.
const netns = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
export const netnsOk = netns.status === 0;
export const netnsWhy = netnsOk
  ? ''
  : `unshare -n is not available here: ${netns.error?.message ?? netns.stderr.trim()}`;
/** Appended to a test's name when it is skipped for want of a network namespace. */
export const netnsSkipNote = netnsWhy ? ` (skipped: ${netnsWhy})` : '';

/** Run the CLI in a fresh network namespace (so 127.0.0.1:6379 is not the production server). */
export function inNetns(
  args: string[],
  opts: Omit<SpawnOptions, 'guard' | 'command'> = {},
): Promise<CliResult> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return runCli([], {
    ...opts,
    guard: false,
    command: ['unshare', '-n', 'sh', '-c', `ip link set lo up && exec ${quoted}`],
  });
}

/** redis-server processes listening on this port (redis-server retitles itself `redis-server HOST:PORT`). */
export function redisServersOnPort(port: number): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes('redis-server') && new RegExp(`:${port}\\b|--port ${port}\\b`).test(cmd))
        out.push(Number(pid));
    } catch {
      // gone
    }
  }
  return out;
}

/** The exit code and output of a CLI, for an assertion's message. */
export function describeResult(r: { code: number | null; stdout: string; stderr: string }): string {
  return `exit ${r.code}\n--- stdout ---\n${r.stdout.slice(0, 2000)}\n--- stderr ---\n${r.stderr}`;
}

/** The whole of stdout must be one result document (what `run --json` prints). */
export function parseDoc(stdout: string): ResultV1 {
  if (!stdout.trimStart().startsWith('{')) throw new Error(`stdout is not one JSON document:\n${stdout}`);
  return JSON.parse(stdout) as ResultV1;
}

/** One result document per line (what `run --json` prints for a launched group). */
export function parseDocs(stdout: string): ResultV1[] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ResultV1);
}

/** A signed result file (what `run --out` writes) and its payload, parsed. */
export async function readEnvelope(file: string): Promise<{ envelope: EnvelopeV1; payload: ResultV1 }> {
  const envelope = JSON.parse(await readFile(file, 'utf8')) as EnvelopeV1;
  return { envelope, payload: JSON.parse(envelope.payload) as ResultV1 };
}
