import { createServer, type Server, type Socket } from 'node:net';

/**
 * A RESP server that answers like a small Redis until told to misbehave, for the cases no real
 * server can produce: replies nested without end, a line that never ends, a bulk length of
 * petabytes, INFO of the wrong type, replies of the wrong type. Everything else gets a plausible
 * answer (INFO with a version and commandstats, SCAN with no keys), so the runner gets as far as
 * the case needs.
 */

/** What to send instead of the normal reply to a command. */
export type Hostility =
  /** `*1\r\n` without end: an array nested deeper and deeper. */
  | 'deep-nesting'
  /** `+aaaa...` without end: a simple string whose line never ends. */
  | 'endless-line'
  /** `$1000000000000000\r\n` and then bytes without end. */
  | 'huge-bulk'
  /** An integer where a bulk string (or status) belongs, to every such command from then on. */
  | 'integer'
  /** A reply that never comes, while the socket stays open. */
  | 'silence';

export interface HostileRule {
  /** The command's name, upper case (INFO, PING, GET, SET...). */
  command: string;
  /** Only the nth time this command arrives on a connection and later (1-based); default 1. */
  from?: number;
  /** Only on the control connection (the first to send INFO) or only on the others. */
  connection?: 'control' | 'load';
  send: Hostility;
}

const CHUNK = 64 * 1024;

export class HostileServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  /** Replies of each command name sent so far, over all connections (the fake commandstats). */
  readonly calls = new Map<string, number>();
  /** Bytes of hostile replies written so far. */
  hostileBytes = 0;
  /** Keys written by the commands that write one (SET, HSET, PSETEX...), until UNLINK or DEL. */
  readonly keys = new Set<string>();
  /** Every key ever written: what the run marked, whether or not it was removed. */
  readonly written = new Set<string>();
  port = 0;

  private constructor(private readonly rules: HostileRule[]) {
    this.server = createServer((s) => this.accept(s));
  }

  static async start(rules: HostileRule[]): Promise<HostileServer> {
    const m = new HostileServer(rules);
    await new Promise<void>((resolve) => m.server.listen(0, '127.0.0.1', resolve));
    const address = m.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    m.port = address.port;
    return m;
  }

  /** Connections still open (a runner that ended closes all of its own). */
  get openConnections(): number {
    return this.sockets.size;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(s: Socket): void {
    this.sockets.add(s);
    s.setNoDelay(true);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => {});
    const seen = new Map<string, number>();
    let pending = Buffer.alloc(0);
    let hostile = false;
    let control = false;
    s.on('data', (chunk: Buffer) => {
      if (hostile) return;
      pending = Buffer.concat([pending, chunk]);
      let out = '';
      for (;;) {
        const parsed = parseCommand(pending);
        if (parsed === null) break;
        pending = pending.subarray(parsed.used);
        const name = (parsed.words[0] ?? '').toUpperCase();
        if (name === 'INFO') control = true;
        const n = (seen.get(name) ?? 0) + 1;
        seen.set(name, n);
        const rule = this.rules.find(
          (r) =>
            r.command === name &&
            n >= (r.from ?? 1) &&
            (r.connection === undefined || (r.connection === 'control') === control),
        );
        if (rule?.send === 'integer') {
          // Counted, so that only the reply's type is wrong, not the server's commandstats.
          this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
          out += ':1\r\n';
          continue;
        }
        if (rule) {
          s.write(out);
          hostile = true;
          this.misbehave(s, rule.send);
          return;
        }
        this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
        out += this.answer(name, parsed.words);
      }
      if (out) s.write(out);
    });
  }

  private misbehave(s: Socket, how: Hostility): void {
    if (how === 'silence' || how === 'integer') return;
    const head = how === 'endless-line' ? '+' : how === 'huge-bulk' ? '$1000000000000000\r\n' : '';
    const body = Buffer.alloc(CHUNK, how === 'deep-nesting' ? '*1\r\n' : 'a');
    s.write(head);
    // As fast as the runner reads, until it hangs up: backpressure keeps this server's memory flat.
    const pump = () => {
      while (!s.destroyed) {
        this.hostileBytes += body.length;
        if (!s.write(body)) {
          s.once('drain', pump);
          return;
        }
      }
    };
    pump();
  }

  /** A plausible answer, as a Redis 7 would give it; keys are kept by name, so cleanup can be checked. */
  private answer(name: string, words: string[]): string {
    const key = words[1] ?? '';
    switch (name) {
      case 'PING':
        return '+PONG\r\n';
      case 'INFO':
        return bulk(this.info());
      case 'GET':
        return this.keys.has(key) ? bulk('xxx') : '$-1\r\n';
      case 'SCAN': {
        const at = words.findIndex((w) => w.toUpperCase() === 'MATCH');
        const re = globToRegExp(at > 0 ? (words[at + 1] ?? '*') : '*');
        const found = [...this.keys].filter((k) => re.test(k));
        return `*2\r\n$1\r\n0\r\n*${found.length}\r\n${found.map(bulk).join('')}`;
      }
      case 'UNLINK':
      case 'DEL':
        return `:${words.slice(1).filter((k) => this.keys.delete(k)).length}\r\n`;
      case 'EXISTS':
        return `:${words.slice(1).filter((k) => this.keys.has(k)).length}\r\n`;
      case 'SET':
      case 'PSETEX':
      case 'MSET':
        this.write(key);
        return '+OK\r\n';
      case 'HSET':
      case 'INCR':
      case 'LPUSH':
      case 'RPUSH':
      case 'SADD':
      case 'ZADD':
        this.write(key);
        return ':1\r\n';
      case 'HGETALL':
        return '*0\r\n';
      case 'CONFIG':
      case 'CLIENT':
        return words[1]?.toUpperCase() === 'LIST' ? bulk('id=1 addr=127.0.0.1:1 cmd=client\n') : '*0\r\n';
      default:
        return '+OK\r\n';
    }
  }

  private write(key: string): void {
    this.keys.add(key);
    this.written.add(key);
  }

  private info(): string {
    const stats = [...this.calls].map(
      ([n, c]) =>
        `cmdstat_${n.toLowerCase()}:calls=${c},usec=1,usec_per_call=1.00,rejected_calls=0,failed_calls=0`,
    );
    return [
      '# Server',
      'redis_version:7.2.4',
      'redis_mode:standalone',
      'process_id:1',
      'tcp_port:0',
      '# CPU',
      'used_cpu_sys:0.1',
      'used_cpu_user:0.1',
      '# Commandstats',
      ...stats,
      '',
    ].join('\r\n');
  }
}

/** SCAN's MATCH pattern as a RegExp: `*`, `?` and backslash escapes (what escapeGlob writes). */
function globToRegExp(glob: string): RegExp {
  const literal = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\' && i + 1 < glob.length) out += literal(glob[++i]!);
    else if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else out += literal(c);
  }
  return new RegExp(`^${out}$`);
}

const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;

/** One command (a RESP array of bulk strings, or an inline line) from the front of `buf`. */
function parseCommand(buf: Buffer): { words: string[]; used: number } | null {
  const eol = buf.indexOf('\r\n');
  if (eol < 0) return null;
  if (buf[0] !== 42) return { words: buf.toString('latin1', 0, eol).split(' '), used: eol + 2 };
  const count = Number(buf.toString('latin1', 1, eol));
  let at = eol + 2;
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    const e = buf.indexOf('\r\n', at);
    if (e < 0) return null;
    const len = Number(buf.toString('latin1', at + 1, e));
    if (buf.length < e + 2 + len + 2) return null;
    words.push(buf.toString('latin1', e + 2, e + 2 + len));
    at = e + 2 + len + 2;
  }
  return { words, used: at };
}
