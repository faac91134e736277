import { createServer, type Server, type Socket } from 'node:net';

/**
 * A RESP server whose capacity is known: every PING joins one queue, drained at `opsPerSec` replies
 * a second, so a search's answer can be checked against it. No real server can be held to a fixed
 * service rate. Other commands (the control plane's INFO) are answered at once, with no
 * commandstats and no CPU figures: the session reads those as unavailable.
 */
export class FixedRateServer {
  private readonly server: Server;
  private readonly queue: Socket[] = [];
  private head = 0;
  private tokens = 0;
  private lastMs = performance.now();
  private timer: NodeJS.Timeout | null = null;
  private readonly sockets = new Set<Socket>();
  served = 0;

  private constructor(readonly opsPerSec: number) {
    this.server = createServer((s) => this.accept(s));
  }

  static async start(opsPerSec: number): Promise<FixedRateServer & { port: number }> {
    const m = new FixedRateServer(opsPerSec);
    await new Promise<void>((resolve) => m.server.listen(0, '127.0.0.1', resolve));
    const address = m.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    m.timer = setInterval(() => m.drain(), 1);
    return Object.assign(m, { port: address.port });
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Release as many replies as the rate has earned since the last drain. */
  private drain(): void {
    const now = performance.now();
    // A pause of this loop (a busy machine) is made up for, up to 0.2 s of it, so the capacity
    // stays the rate; an empty queue earns no credit (see below).
    this.tokens = Math.min(this.tokens + ((now - this.lastMs) * this.opsPerSec) / 1000, this.opsPerSec / 5);
    this.lastMs = now;
    while (this.tokens >= 1 && this.head < this.queue.length) {
      const s = this.queue[this.head++]!;
      this.tokens--;
      this.served++;
      if (!s.destroyed) s.write('+PONG\r\n');
    }
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
      this.tokens = Math.min(this.tokens, 1);
    }
  }

  private accept(s: Socket): void {
    this.sockets.add(s);
    // Replies leave one by one: Nagle's algorithm would hold them for the client's delayed ACK (40 ms).
    s.setNoDelay(true);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => {});
    let pending = '';
    s.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      for (;;) {
        const parsed = parseCommand(pending);
        if (parsed === null) break;
        pending = pending.slice(parsed.used);
        const name = parsed.words[0]?.toUpperCase();
        if (name === 'PING') this.queue.push(s);
        else if (name === 'INFO' && parsed.words[1]?.toLowerCase() === 'cpu')
          s.write('-ERR this server reports no CPU figures\r\n');
        else if (name === 'INFO') s.write(bulk(''));
        else if (name === 'QUIT') s.end('+OK\r\n');
        else s.write('+OK\r\n');
      }
    });
  }
}

const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;

/** One command (a RESP array of bulk strings, or an inline line) from the front of `buf`. */
function parseCommand(buf: string): { words: string[]; used: number } | null {
  const eol = buf.indexOf('\r\n');
  if (eol < 0) return null;
  if (buf[0] !== '*') return { words: buf.slice(0, eol).split(' '), used: eol + 2 };
  const count = Number(buf.slice(1, eol));
  let at = eol + 2;
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    const e = buf.indexOf('\r\n', at);
    if (e < 0) return null;
    const len = Number(buf.slice(at + 1, e));
    if (buf.length < e + 2 + len + 2) return null;
    words.push(buf.slice(e + 2, e + 2 + len));
    at = e + 2 + len + 2;
  }
  return { words, used: at };
}
