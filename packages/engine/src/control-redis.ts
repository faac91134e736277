import net from 'node:net';
import tls from 'node:tls';
import { AbstractConnector, type Command, Redis, type RedisOptions } from 'ioredis';
import { CONTROL_REPLY_LIMITS, ReplyLimitError, serverBrokeLimit } from './resp/reply-limits.js';
import { ReplyReader } from './resp/reply-reader.js';

/**
 * ioredis for the control connection, held to two rules it does not keep by itself.
 *
 * Reply limits. ioredis's parser (redis-parser) builds every reply and buffers it until it is
 * complete, so a hostile server could grow it without end, and arrays nested a few thousand deep
 * overflow its stack (a raw RangeError). Every read is first walked by the engine's own reader
 * (which builds nothing) under CONTROL_REPLY_LIMITS; a read that breaks one never reaches the
 * parser, and the connection is cut.
 *
 * One deadline. A control command that times out (--timeout) means the server stopped answering:
 * the connection is cut then, so the commands after it (commandstats, cleanup, QUIT) fail at once
 * instead of each waiting out the deadline again (a stopped server took 52 s to end a 10 s run).
 *
 * Once cut, every pending and later command fails with the reason, which names the server.
 */
export class ControlRedis extends Redis {
  /** Why the connection was cut, or null while it is usable. */
  cutReason: Error | null = null;
  /** The normal command deadline, while a shorter one is in force (expectStall). */
  private normalTimeoutMs: number | undefined | null = null;

  /** Open (lazily, as RedisOptions.lazyConnect says) a guarded connection to `server` (its name, for messages). */
  static create(options: RedisOptions, server: string): ControlRedis {
    const link: { redis: ControlRedis | null } = { redis: null };
    // RESP2 shapes (control.ts asks for protocol 2): the one mapping ioredis 6 allows with it.
    const redis = new ControlRedis({
      ...options,
      replyMapping: 'legacy',
      Connector: guardedConnector(server, link),
    });
    redis.server = server;
    link.redis = redis;
    return redis;
  }

  server = '';

  /** Cut the connection: every pending and later command fails with `reason`. */
  cut(reason: Error): void {
    if (this.cutReason !== null) return;
    this.cutReason = reason;
    // Rejects the queued commands with the reason (not ioredis's "Connection is closed").
    this.recoverFromFatalError(reason, reason, {});
    this.disconnect();
  }

  /**
   * The measured connections found the server silent for the whole --timeout: until it answers
   * again, a control command gets `ms` rather than the full deadline, so that the run ends within
   * --timeout plus a margin of the stall, not several deadlines after it.
   */
  expectStall(ms: number): void {
    const normal = this.options.commandTimeout;
    if (normal === undefined || normal <= ms) return;
    if (this.normalTimeoutMs === null) this.normalTimeoutMs = normal;
    this.options.commandTimeout = ms;
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    if (this.cutReason !== null) {
      command.reject(this.cutReason);
      return command.promise;
    }
    const deadlineMs = this.options.commandTimeout;
    const sent = super.sendCommand(command, stream);
    command.promise.then(
      () => this.answered(),
      (err: Error) => {
        if (err.message === 'Command timed out') this.cut(stopped(this.server, command.name, deadlineMs));
      },
    );
    return sent;
  }

  private answered(): void {
    if (this.normalTimeoutMs === null) return;
    this.options.commandTimeout = this.normalTimeoutMs ?? undefined;
    this.normalTimeoutMs = null;
  }
}

/** The error of a control command that timed out. */
export class ServerStoppedError extends Error {
  readonly code = 'ERR_SERVER_STOPPED';
}

function stopped(server: string, command: string, deadlineMs: number | undefined): ServerStoppedError {
  const s = ((deadlineMs ?? 0) / 1000).toFixed(1);
  return new ServerStoppedError(
    `the server at ${server} stopped answering: no reply to ${command.toUpperCase()} within ${s} s on the control connection, which is closed so that the run ends now. Check that the server is running and not paused (SIGSTOP, a debugger) or swapping; raise --timeout if such pauses are expected`,
  );
}

/**
 * An ioredis Connector (StandaloneConnector's connect, which ioredis does not export) whose socket
 * shows every read to a ReplyReader under CONTROL_REPLY_LIMITS before ioredis's parser sees it.
 */
function guardedConnector(server: string, link: { redis: ControlRedis | null }) {
  return class GuardedConnector extends AbstractConnector {
    private readonly options: RedisOptions & { path?: string };

    constructor(options: unknown) {
      const o = options as RedisOptions & { path?: string };
      super(o.disconnectTimeout ?? 0);
      this.options = o;
    }

    connect(): Promise<net.Socket> {
      const o = this.options;
      this.connecting = true;
      return new Promise((resolve, reject) => {
        process.nextTick(() => {
          if (!this.connecting) {
            reject(new Error('Connection is closed.'));
            return;
          }
          const where = o.path ? { path: o.path } : { host: o.host ?? '127.0.0.1', port: o.port ?? 6379 };
          // control.ts gives TLS options as an object (ioredis 6 also takes a profile name: not used here).
          const stream = typeof o.tls === 'object' ? tls.connect({ ...where, ...o.tls }) : net.connect(where);
          stream.once('error', (err) => {
            this.firstError = err;
          });
          guard(stream, server, link);
          this.stream = stream;
          resolve(stream);
        });
      });
    }
  };
}

/** Put the reader between the socket and its 'data' listeners (ioredis's parser among them). */
function guard(stream: net.Socket, server: string, link: { redis: ControlRedis | null }): void {
  const reader = new ReplyReader(CONTROL_REPLY_LIMITS);
  const emit = stream.emit;
  let refused = false;
  stream.emit = function (this: net.Socket, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'data') {
      if (refused) return false;
      const chunk = args[0] as Buffer;
      try {
        reader.feed(chunk, chunk.length);
      } catch (err) {
        refused = true;
        const what = (err as Error).message;
        const reason =
          err instanceof ReplyLimitError
            ? serverBrokeLimit(server, what)
            : new ReplyLimitError(`the server at ${server} sent a reply that is not RESP (${what})`);
        link.redis?.cut(reason);
        stream.destroy();
        return false;
      }
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
  } as typeof stream.emit;
}
