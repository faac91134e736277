import { readFileSync } from 'node:fs';
import { parseInfo } from '@redis-benchdb/result';
import type { RedisOptions } from 'ioredis';
import { ControlRedis } from './control-redis.js';
import { DEFAULT_REPLY_TIMEOUT_SEC, type Target } from './options.js';

/**
 * The control plane: ioredis for everything that is not measured (handshake checks, INFO,
 * preloading, cleanup). Its own commands (INFO, SCAN, UNLINK...) never share a name with a
 * measured command during a cell, so the commandstats cross-check stays exact.
 */
export class ControlPlane {
  private constructor(
    readonly redis: ControlRedis,
    /** The server, for messages: `host:port`, `unix socket PATH`. */
    readonly server: string,
  ) {}

  static async connect(target: Target): Promise<ControlPlane> {
    const redis = ControlRedis.create(toIoredisOptions(target), describeTarget(target));
    // ioredis rejects connect() with a bare "Connection is closed"; the cause comes as an event.
    let cause: Error | null = null;
    redis.on('error', (err: Error) => {
      cause ??= err;
    });
    try {
      await redis.connect();
    } catch (err) {
      redis.disconnect();
      throw new ConnectError(describeConnectFailure(target, cause ?? (err as Error)));
    }
    // AUTH and SELECT are sent here rather than by ioredis, which downgrades some AUTH
    // failures to a console warning; here they fail with the server's words and the fix.
    try {
      if (target.password !== undefined)
        await (target.user ? redis.auth(target.user, target.password) : redis.auth(target.password));
      if (target.db !== 0) await redis.select(target.db);
      await redis.ping();
    } catch (err) {
      redis.disconnect();
      // A reply past a limit, or no reply at all, is not a refusal: its own message says what happened.
      if (redis.cutReason) throw redis.cutReason;
      throw new ConnectError(explainHandshakeError(describeTarget(target), (err as Error).message));
    }
    return new ControlPlane(redis, describeTarget(target));
  }

  async info(section: string): Promise<Record<string, string>> {
    return parseInfo(await this.infoText(section));
  }

  /** INFO's text; any other type of reply is refused, naming the server and what it sent. */
  async infoText(section?: string): Promise<string> {
    const reply: unknown = section ? await this.redis.info(section) : await this.redis.info();
    if (typeof reply === 'string') return reply;
    throw new ServerReplyError(
      `the server at ${this.server} answered INFO${section ? ` ${section}` : ''} with ${describeReply(reply)}, not the text of fields INFO returns: it is not a Redis-compatible server, or something between (a proxy) changed its reply`,
    );
  }

  /** The measured connections found the server silent for --timeout: see ControlRedis.expectStall. */
  expectStall(): void {
    this.redis.expectStall(STALLED_CONTROL_TIMEOUT_MS);
  }

  async commandStats(): Promise<Map<string, { calls: number; rejectedCalls: number; failedCalls: number }>> {
    const out = new Map<string, { calls: number; rejectedCalls: number; failedCalls: number }>();
    for (const [k, v] of Object.entries(await this.info('commandstats'))) {
      if (!k.startsWith('cmdstat_')) continue;
      const f = Object.fromEntries(v.split(',').map((p) => p.split('=') as [string, string]));
      out.set(k.slice(8), {
        calls: Number(f.calls ?? 0),
        rejectedCalls: Number(f.rejected_calls ?? 0),
        failedCalls: Number(f.failed_calls ?? 0),
      });
    }
    return out;
  }

  /** Server CPU seconds: the whole process, and the main thread where the server reports it. */
  async cpuSeconds(): Promise<{ total: number; mainThread: number | null }> {
    const cpu = await this.info('cpu');
    const n = (k: string) => Number(cpu[k] ?? Number.NaN);
    const main = n('used_cpu_sys_main_thread') + n('used_cpu_user_main_thread');
    return { total: n('used_cpu_sys') + n('used_cpu_user'), mainThread: Number.isFinite(main) ? main : null };
  }

  /** As a KeyStore (prefix-keys.ts): one server holds every key. */
  readonly clustered = false;
  nodes(): ControlPlane[] {
    return [this];
  }
  forKey(_key: string): ControlPlane {
    return this;
  }

  /**
   * QUIT, waiting at most QUIT_WAIT_MS, then close the socket whatever the server does: a server
   * that never answers QUIT, or answers and holds the socket open, must not keep the process alive.
   */
  async close(): Promise<void> {
    if (this.redis.cutReason === null && this.redis.status === 'ready') {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.redis.quit().catch(() => {}),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, QUIT_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    this.redis.disconnect();
  }
}

/** How long close() waits for QUIT's reply before it closes the socket anyway. */
const QUIT_WAIT_MS = 1000;

/**
 * A control command's deadline after the measured connections hit --timeout (expectStall). The
 * run then ends within --timeout plus RUN_END_MARGIN_SEC of the stall: this second, and the rest
 * of the run's end (signing, writing, closing).
 */
export const STALLED_CONTROL_TIMEOUT_MS = 1000;

export class ConnectError extends Error {
  readonly code = 'ERR_CONNECT';
}

/** The server answered a control command with a reply of a type that command never returns. */
export class ServerReplyError extends Error {
  readonly code = 'ERR_SERVER_REPLY';
}

/** A reply as ioredis gave it, in words: "an integer", "an array of 3 values". */
function describeReply(reply: unknown): string {
  if (reply === null) return 'a nil';
  if (typeof reply === 'number') return 'an integer';
  if (Array.isArray(reply)) return `an array of ${reply.length} value${reply.length === 1 ? '' : 's'}`;
  if (Buffer.isBuffer(reply)) return 'a binary string';
  return `a ${typeof reply}`;
}

export function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, '\\$&');
}

function toIoredisOptions(t: Target): RedisOptions {
  const o: RedisOptions = {
    host: t.host,
    port: t.port,
    lazyConnect: true,
    // The ready check sends INFO before AUTH; connect() then fails on NOAUTH with no detail.
    enableReadyCheck: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    // ioredis 6 opens with HELLO 3 unless told otherwise: the control connection speaks RESP2, as the
    // measured connections do, so the server sees one protocol, its commandstats no HELLO, and the
    // guard's reply reader (built for RESP2 replies) reads every reply.
    protocol: 2,
    connectTimeout: 5000,
    // disconnect() otherwise keeps the process alive 2 s after a failed connect.
    disconnectTimeout: 0,
  };
  // A server that stopped answering must not hang the INFO and cleanup after a cell that hit
  // the reply deadline: each control command gets the same deadline.
  const timeoutSec = t.replyTimeoutSec ?? DEFAULT_REPLY_TIMEOUT_SEC;
  if (timeoutSec > 0) o.commandTimeout = timeoutSec * 1000;
  if (t.socket) o.path = t.socket;
  if (t.tls) {
    const tls = t.tls === true ? {} : t.tls;
    o.tls = {
      rejectUnauthorized: !tls.insecure,
      ...(tls.caFile ? { ca: readFileSync(tls.caFile) } : {}),
      ...(tls.certFile ? { cert: readFileSync(tls.certFile) } : {}),
      ...(tls.keyFile ? { key: readFileSync(tls.keyFile) } : {}),
      ...(tls.servername ? { servername: tls.servername } : {}),
    };
  }
  return o;
}

export function describeTarget(t: Target): string {
  return t.socket ? `unix socket ${t.socket}` : `${t.host}:${t.port}${t.tls ? ' (TLS)' : ''}`;
}

/** The server's reply to AUTH, HELLO or SELECT, with what to change on the command line. */
export function explainHandshakeError(where: string, msg: string): string {
  let fix = '';
  if (/NOAUTH/i.test(msg)) fix = 'The server needs a password: pass it with -a (and --user for an ACL user).';
  else if (/WRONGPASS|invalid (username|password)/i.test(msg))
    fix = 'Check the password (-a) and the ACL user (--user).';
  else if (/without any password configured/i.test(msg)) fix = 'The server has no password set: drop -a.';
  else if (/unknown command.*HELLO/i.test(msg)) fix = 'The server does not speak RESP3: drop -3/--resp3.';
  else if (/DB index|invalid DB/i.test(msg)) fix = 'Choose a database the server has (--dbnum).';
  else if (/max number of clients/i.test(msg))
    fix =
      'The server is at its connection limit: run fewer connections (-c), or raise it (CONFIG SET maxclients 10000).';
  return `the server at ${where} refused the handshake: ${msg}${fix ? ` — ${fix}` : ''}`;
}

function describeConnectFailure(t: Target, err: Error): string {
  const where = describeTarget(t);
  const msg = err.message;
  if (/ECONNREFUSED|ENOENT/.test(msg))
    return `cannot connect to ${where}: nothing is listening there (${msg}). Start a server (redis-server --port ${t.port}) or point -h/-p/-s at one.`;
  if (/NOAUTH|WRONGPASS|invalid password|invalid username/i.test(msg))
    return `cannot authenticate to ${where}: ${msg}. Pass the password with -a and, for an ACL user, --user.`;
  if (/ENOTFOUND|EAI_AGAIN/.test(msg))
    return `cannot connect to ${where}: no host of that name was found (${msg}). Check the spelling of -h, or give an IP address (-h 127.0.0.1 for this machine).`;
  if (/ETIMEDOUT|timeout/i.test(msg))
    return `cannot connect to ${where}: timed out (${msg}). Check the address and any firewall.`;
  return `cannot connect to ${where}: ${msg}`;
}
