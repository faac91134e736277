/**
 * Starts throwaway redis-server (or valkey-server) processes: for tests, for the CLI when nothing
 * answers on 127.0.0.1:6379, and to benchmark several server binaries side by side.
 *
 * Each server gets benchmark-safe defaults (loopback only, no persistence, a fresh temp `dir`),
 * logs to stdout which we capture, and is SIGKILLed if the Node process exits while it runs.
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, lstatSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

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
  tls?: { certFile: string; keyFile: string; caFile?: string; requireClientCert?: boolean };
  /** Extra config lines, e.g. ['io-threads 2', 'requirepass secret'] — each 'name value...' becomes --name value... args. */
  config?: string[];
  /** ms to wait for the server to be ready. @default 10000 */
  startTimeoutMs?: number;
}

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
  exited: Promise<{ code: number | null; signal: string | null }>;
}

export class ServerLaunchError extends Error {
  readonly code = 'ERR_SERVER_LAUNCH';
  override readonly name = 'ServerLaunchError';
  constructor(
    message: string,
    /** The last lines the server logged (stdout and stderr), oldest first. */
    readonly log: string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

// Redis 7.2+ logs 'Ready to accept connections tcp' (and unix, tls); 7.0 and older log 'Ready to
// accept connections' when there is a TCP/TLS listener, and only 'The server is now ready to accept
// connections at PATH' when there is just a unix socket.
const READY_LINE = /ready to accept connections/i;
const LOG_LINES_KEPT = 50;
const PORT_RETRIES = 5;
const STOP_GRACE_MS = 5_000;
const DEFAULT_START_TIMEOUT_MS = 10_000;
const BIND_FAILURE =
  /Address already in use|Could not create server (TCP|TLS) listening socket|Failed listening on port/i;

/**
 * Finds an executable: a name containing a path separator is checked as given (resolved against
 * the cwd), a bare name is searched on PATH. Returns the path, or null if there is none.
 */
export function findServerBinary(name = 'redis-server'): string | null {
  if (name.includes('/') || name.includes(path.sep)) {
    const full = path.resolve(name);
    return isExecutableFile(full) ? full : null;
  }
  const exts = process.platform === 'win32' ? ['', ...(process.env.PATHEXT ?? '.EXE').split(';')] : [''];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return null;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function installHint(name: string): string {
  const base = path.basename(name);
  if (base.startsWith('valkey')) {
    return `${base} not found${name === base ? ' on PATH' : ` at ${name}`}: install it (Debian/Ubuntu: sudo apt-get install valkey-server; macOS: brew install valkey) or pass --server-bin PATH`;
  }
  return `${base} not found${name === base ? ' on PATH' : ` at ${name}`}: install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or pass --server-bin PATH`;
}

// ---- Children killed when Node exits -------------------------------------------------------------

interface LiveChild {
  child: ChildProcess;
  dir: string;
}
const liveChildren = new Set<LiveChild>();
let exitHandlerInstalled = false;

function track(entry: LiveChild): void {
  liveChildren.add(entry);
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on('exit', () => {
    for (const { child, dir } of liveChildren) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // best effort
      }
    }
    liveChildren.clear();
  });
}

// ---- Helpers -------------------------------------------------------------------------------------

/** Binds 127.0.0.1:0, reads the port the OS picked, and closes the listener again. */
function pickFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('could not pick a free port'))));
    });
  });
}

/** The version a server binary reports (`BIN --version`: `v=7.0.15`), or 'unknown'. */
export function readServerVersion(bin: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(bin, ['--version'], { timeout: 5_000 }, (_err, stdout, stderr) => {
      const m = /\bv=(\S+)/.exec(`${stdout ?? ''}\n${stderr ?? ''}`);
      resolve(m?.[1] ?? 'unknown');
    });
  });
}

/** Splits a config line into words, honouring "double" and 'single' quotes (like redis.conf). */
function splitConfigLine(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    if (m[1] !== undefined) words.push(m[1].replace(/\\(.)/g, '$1'));
    else if (m[2] !== undefined) words.push(m[2]);
    else if (m[3] !== undefined) words.push(m[3]);
  }
  return words;
}

function configArgs(lines: readonly string[]): string[] {
  const args: string[] = [];
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    const [name, ...values] = splitConfigLine(trimmed);
    if (!name) continue;
    args.push(`--${name.replace(/^--/, '')}`, ...values);
  }
  return args;
}

function quoteArg(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

function describe(bin: string, args: readonly string[], log: readonly string[]): string {
  const tail = log.length ? `\n--- last ${log.length} log lines ---\n${log.join('\n')}` : '\n(no log output)';
  return `command: ${[bin, ...args].map(quoteArg).join(' ')}${tail}`;
}

/** Connects once; for TLS, a completed handshake (or at least a TCP connect) counts. */
function probeOnce(target: { port: number; tls: boolean } | { path: string }): Promise<boolean> {
  return new Promise((resolve) => {
    let tcpConnected = false;
    let settled = false;
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(ok);
    };
    const sock: net.Socket =
      'path' in target
        ? net.connect({ path: target.path }, () => done(true))
        : target.tls
          ? tls.connect(
              { host: '127.0.0.1', port: target.port, rejectUnauthorized: false, servername: 'localhost' },
              () => done(true),
            )
          : net.connect({ host: '127.0.0.1', port: target.port }, () => done(true));
    sock.once('connect', () => {
      tcpConnected = true;
    });
    sock.once('error', () => done(tcpConnected));
    sock.once('close', () => done(tcpConnected));
    const timer = setTimeout(() => done(tcpConnected), 1_000);
  });
}

async function waitConnectable(
  target: { port: number; tls: boolean } | { path: string },
  deadline: number,
): Promise<boolean> {
  for (;;) {
    if (await probeOnce(target)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

// ---- startServer ---------------------------------------------------------------------------------

type Attempt =
  | { ok: true; server: LaunchedServer }
  | { ok: false; bindFailure: boolean; error: ServerLaunchError };

export async function startServer(opts: LaunchOptions = {}): Promise<LaunchedServer> {
  const name = opts.bin ?? 'redis-server';
  const bin = findServerBinary(name);
  if (!bin) throw new ServerLaunchError(installHint(name));

  if (opts.port !== undefined && (!Number.isInteger(opts.port) || opts.port < -1 || opts.port > 65535)) {
    throw new ServerLaunchError(`invalid port ${opts.port}: use 1-65535, 0 for a free port or -1 for none`);
  }
  if (opts.port === -1 && opts.tls) {
    throw new ServerLaunchError('tls needs a TCP port: do not combine tls with port: -1');
  }
  if (opts.port === -1 && !opts.unixSocket && !opts.unixSocketInDir) {
    throw new ServerLaunchError('port: -1 disables TCP, so a unixSocket path is required');
  }

  const version = await readServerVersion(bin);
  const pickPort = opts.port === undefined || opts.port === 0;
  const timeoutMs = opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;

  for (let attempt = 0; ; attempt++) {
    const port = pickPort ? await pickFreePort() : (opts.port as number) === -1 ? 0 : (opts.port as number);
    const result = await launchOnce(bin, version, port, opts, deadline, timeoutMs);
    if (result.ok) return result.server;
    if (!(pickPort && result.bindFailure && attempt < PORT_RETRIES && Date.now() < deadline)) {
      throw result.error;
    }
  }
}

async function launchOnce(
  bin: string,
  version: string,
  port: number,
  opts: LaunchOptions,
  deadline: number,
  timeoutMs: number,
): Promise<Attempt> {
  const dir = await mkdtemp(path.join(tmpdir(), 'redis-benchdb-server-'));
  const unixSocket = opts.unixSocket ?? (opts.unixSocketInDir ? path.join(dir, 'redis.sock') : undefined);
  const args = [
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--loglevel',
    'notice',
    '--logfile',
    '',
    '--dir',
    dir,
    '--protected-mode',
    'no',
  ];
  if (opts.tls) {
    const t = opts.tls;
    const authClients = t.caFile && t.requireClientCert ? 'yes' : 'no';
    args.push(
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--tls-cert-file',
      t.certFile,
      '--tls-key-file',
      t.keyFile,
    );
    if (t.caFile) args.push('--tls-ca-cert-file', t.caFile);
    args.push('--tls-auth-clients', authClients);
  } else {
    args.push('--port', String(port));
  }
  if (unixSocket) args.push('--unixsocket', unixSocket, '--unixsocketperm', '700');
  args.push(...configArgs(opts.config ?? []));

  const log: string[] = [];
  let ready = false;
  let onReady: (() => void) | undefined;
  const pushLine = (line: string) => {
    if (!line) return;
    log.push(line);
    if (log.length > LOG_LINES_KEPT) log.shift();
    if (!ready && READY_LINE.test(line)) {
      ready = true;
      onReady?.();
    }
  };
  const capture = (stream: NodeJS.ReadableStream | null) => {
    if (!stream) return;
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (partial + chunk).split(/\r?\n/);
      partial = lines.pop() ?? '';
      for (const l of lines) pushLine(l);
    });
    stream.on('end', () => {
      pushLine(partial);
      partial = '';
    });
  };

  const removeDir = async () => {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    if (unixSocket) {
      // A SIGKILLed server leaves its socket file behind; remove it if it is still a socket.
      try {
        if (lstatSync(unixSocket).isSocket()) unlinkSync(unixSocket);
      } catch {
        // gone already
      }
    }
  };

  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const entry: LiveChild = { child, dir };
  track(entry);
  capture(child.stdout);
  capture(child.stderr);

  let spawnError: NodeJS.ErrnoException | undefined;
  let hasExited = false;
  let onExit: (() => void) | undefined;
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    let done = false;
    const finish = (code: number | null, signal: string | null) => {
      if (done) return;
      done = true;
      hasExited = true;
      liveChildren.delete(entry);
      resolve({ code, signal });
      onExit?.();
    };
    child.once('error', (err: NodeJS.ErrnoException) => {
      spawnError = err;
      // A failed spawn emits no 'exit'; a running child that fails to be signalled stays alive.
      if (child.pid === undefined) finish(null, null);
    });
    // 'close' (rather than 'exit') so that the last log lines have been read.
    child.once('close', (code, signal) => finish(code, signal));
  });
  const cleaned = exited.then(removeDir);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    if (stopping) return stopping;
    stopping = (async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const killed = await Promise.race([
          exited.then(() => false),
          new Promise<boolean>((r) => {
            timer = setTimeout(() => r(true), STOP_GRACE_MS);
          }),
        ]);
        clearTimeout(timer);
        if (killed) child.kill('SIGKILL');
      }
      await cleaned;
    })();
    return stopping;
  };

  // Wait for the ready line, the process to end, or the deadline.
  type Outcome = 'ready' | 'exited' | 'timeout';
  let timer: NodeJS.Timeout | undefined;
  const outcome = await new Promise<Outcome>((resolve) => {
    if (ready) return resolve('ready');
    if (hasExited) return resolve('exited');
    onReady = () => resolve('ready');
    onExit = () => resolve('exited');
    timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
  });
  clearTimeout(timer);
  onReady = undefined;
  onExit = undefined;

  const fail = async (message: string, bindFailure = false, cause?: unknown): Promise<Attempt> => {
    await stop();
    const lines = [...log];
    return {
      ok: false,
      bindFailure,
      error: new ServerLaunchError(`${message}\n${describe(bin, args, lines)}`, lines, { cause }),
    };
  };

  if (outcome === 'exited') {
    if (spawnError) {
      const msg =
        spawnError.code === 'ENOENT'
          ? installHint(opts.bin ?? 'redis-server')
          : `could not start ${bin}: ${spawnError.message}`;
      return fail(msg, false, spawnError);
    }
    const { code, signal } = await exited;
    const bindFailure = log.some((l) => BIND_FAILURE.test(l));
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    return fail(`${path.basename(bin)} ${how} before it was ready`, bindFailure);
  }
  if (outcome === 'timeout') {
    return fail(`${path.basename(bin)} was not ready within ${timeoutMs} ms`);
  }

  // Belt and braces: the ready line is logged once the listeners are bound; check one answers.
  const target = port > 0 ? { port, tls: Boolean(opts.tls) } : { path: unixSocket as string };
  if (!(await waitConnectable(target, Math.max(deadline, Date.now() + 1_000)))) {
    const where = 'path' in target ? `unix socket ${target.path}` : `127.0.0.1:${port}`;
    return fail(`${path.basename(bin)} logged that it is ready but ${where} does not accept connections`);
  }

  const server: LaunchedServer = {
    host: '127.0.0.1',
    port,
    tls: Boolean(opts.tls),
    pid: child.pid as number,
    bin,
    version,
    stop,
    exited,
  };
  if (unixSocket) server.unixSocket = unixSocket;
  return { ok: true, server };
}
