/**
 * When a launched server is ready: it logs so once its listeners are bound, and one of them then
 * accepts a connection. Both waits end on an event (the line, the process exit, a connect) or the
 * caller's deadline, never after a fixed sleep.
 */

import net from 'node:net';
import tls from 'node:tls';

// Redis 7.2+ logs 'Ready to accept connections tcp' (and unix, tls); 7.0 and older log 'Ready to
// accept connections' when there is a TCP/TLS listener, and only 'The server is now ready to accept
// connections at PATH' when there is just a unix socket.
const READY_LINE = /ready to accept connections/i;
const LOG_LINES_KEPT = 50;
// Between connect attempts while the listener is not up yet; each attempt is itself an event wait.
const PROBE_RETRY_MS = 50;
const PROBE_TIMEOUT_MS = 1_000;

/** The last lines a server logged, and whether it said it is ready. */
export class ServerLog {
  readonly lines: string[] = [];
  /** Resolves on the first ready line. */
  readonly ready: Promise<void>;
  private markReady: () => void = () => {};
  private seenReady = false;

  constructor() {
    this.ready = new Promise((resolve) => {
      this.markReady = resolve;
    });
  }

  push = (line: string): void => {
    this.lines.push(line);
    if (this.lines.length > LOG_LINES_KEPT) this.lines.shift();
    if (!this.seenReady && READY_LINE.test(line)) {
      this.seenReady = true;
      this.markReady();
    }
  };
}

export type ReadyOutcome = 'ready' | 'exited' | 'timeout';

/** Waits for the ready line, the process to end, or the deadline (ms since epoch); the ready line wins a tie. */
export async function waitForReadyLine(
  log: ServerLog,
  exited: Promise<unknown>,
  deadline: number,
): Promise<ReadyOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ReadyOutcome>((r) => {
    timer = setTimeout(() => r('timeout'), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([
      log.ready.then((): ReadyOutcome => 'ready'),
      exited.then((): ReadyOutcome => 'exited'),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export type ListenerTarget = { port: number; tls: boolean } | { path: string };

/** Retries a connect until one succeeds or the deadline passes. */
export async function waitConnectable(target: ListenerTarget, deadline: number): Promise<boolean> {
  for (;;) {
    if (await connectsOnce(target)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, PROBE_RETRY_MS));
  }
}

export function describeTarget(target: ListenerTarget): string {
  return 'path' in target ? `unix socket ${target.path}` : `127.0.0.1:${target.port}`;
}

/**
 * Connects once. For TLS a completed handshake counts, and so does a TCP connect the server then
 * closes: a server that requires client certificates ends the handshake, yet it listens.
 */
function connectsOnce(target: ListenerTarget): Promise<boolean> {
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
    const sock = connect(target, () => done(true));
    sock.once('connect', () => {
      tcpConnected = true;
    });
    sock.once('error', () => done(tcpConnected));
    sock.once('close', () => done(tcpConnected));
    const timer = setTimeout(() => done(tcpConnected), PROBE_TIMEOUT_MS);
  });
}

function connect(target: ListenerTarget, onReady: () => void): net.Socket {
  if ('path' in target) return net.connect({ path: target.path }, onReady);
  if (!target.tls) return net.connect({ host: '127.0.0.1', port: target.port }, onReady);
  const options = {
    host: '127.0.0.1',
    port: target.port,
    rejectUnauthorized: false,
    servername: 'localhost',
  };
  return tls.connect(options, onReady);
}
