import net from 'node:net';
import tls from 'node:tls';
import type { IncompleteReason } from '@redis-benchdb/result';
import { ReplyReader } from '../resp/reply-reader.js';
import { writeKeyDigits } from '../resp/request-template.js';
import type { Workload } from './workload.js';

/** What a connection reports to the driver that owns it. */
export interface ConnectionHost {
  onReplies(conn: MeasuredConnection, count: number, now: number): void;
  onConnectionLost(conn: MeasuredConnection, err: Error): void;
  /** Stop the cell with this reason (the result is marked incomplete). */
  abort(reason: string, kind?: IncompleteReason): void;
}

/**
 * What the driver needs of a measured connection: one socket (LoadConnection), or in cluster
 * mode one socket per primary (ClusterConnection), each its own pipeline. The connection knows
 * its pipelines and their mode; the driver grants a budget (the measured requests it may still
 * start) and is told how many requests the connection took on. A request is taken on when its
 * key is drawn: it is sent at once, or (cluster mode) waits in a pending pool until its node has
 * room, and is answered in either case unless the cell stops first (discardPending).
 */
export interface MeasuredConnection {
  /** Rate mode: when this connection's next request is meant to leave (ms, performance.now()). */
  nextIntendedMs: number;
  /**
   * Closed loop: send what the pipelines have room for (window: up to P in flight; batch: P once
   * all of its replies are in), taking on at most `budget` new requests. Returns how many.
   */
  fill(budget: number): number;
  /** Open loop: take on each request whose intended time has come, at most `budget`; sent while there is room. */
  sendDue(now: number, budget: number): number;
  /** Open loop: when the timer must next wake this connection; +Infinity if only its replies can let it send. */
  nextWakeMs(): number;
  /** Drop the requests taken on but not sent (when measuring begins, or the cell stops); returns how many. */
  discardPending(): number;
  close(): void;
  counters(): ConnectionCounters;
  /** The socket waiting longest for a reply, or null when none has a request outstanding. */
  longestWait(): ReplyWait | null;
  /** The longest wait for a reply that ended in the measured phase. */
  longestGap(): { gapMs: number; endMs: number };
}

/** Why a cell ended before its end: the result schema's `incompleteReason`. */
export type { IncompleteReason };

/** A socket with requests outstanding: since when it has had no reply (ms, performance.now()). */
export interface ReplyWait {
  sinceMs: number;
  outstanding: number;
  server: string;
}

export interface ConnectionCounters {
  /** Replies to the cell's requests: not handshakes, nor redirects that were followed. */
  completed: number;
  nils: number;
  errors: ReadonlyMap<string, number>;
  bytesIn: number;
  bytesOut: number;
  /** Cluster mode: MOVED and ASK replies followed. */
  moved: number;
  ask: number;
  /** The first error reply's message, or '' if none came. */
  errorExample: string;
}

export interface SocketOptions {
  host: string;
  port: number;
  socket?: string;
  tls?: tls.ConnectionOptions;
}

/**
 * One measured connection: writes requests from the workload's templates and times each reply.
 * Replies arrive in request order (RESP is FIFO per connection), so send times live in a ring.
 */
export class LoadConnection implements MeasuredConnection {
  readonly reader = new ReplyReader();
  socket: net.Socket | null = null;
  inFlight = 0;
  bytesIn = 0;
  bytesOut = 0;
  /** Replies to the handshake (HELLO, AUTH, SELECT): not requests of the cell. */
  handshakeReplies = 0;
  /** Rate mode: when this connection's next request is meant to leave (ms, performance.now()). */
  nextIntendedMs = Number.POSITIVE_INFINITY;
  /**
   * When this socket last made progress: its last reply, or the send that ended an idle spell.
   * A watchdog in the driver compares it with the clock: no timer per request.
   */
  progressMs = 0;
  private maxGapMs = 0;
  private maxGapEndMs = 0;
  private server = '';

  private readonly sendTimes: Float64Array;
  private readonly intendedTimes: Float64Array | null;
  private readonly mask: number;
  private head = 0;
  private tail = 0;
  private scratch: Buffer;
  // Pre-encoded copies of a fixed-length request, one per pipeline slot, and views of the
  // first n of them: a send rewrites only the key digits instead of encoding whole requests.
  private readonly prepared: Buffer | null = null;
  private readonly preparedViews: Buffer[] = [];
  private closing = false;
  private handshakeWait: { need: number; resolve: () => void; reject: (e: Error) => void } | null = null;

  constructor(
    private readonly host: ConnectionHost,
    private readonly workload: Workload,
    /** The pipeline depth P. */
    private readonly depth: number,
    /** Window mode (refill as replies arrive) rather than batch (P, then wait for all P). */
    private readonly window: boolean,
    openLoop: boolean,
  ) {
    let size = 1;
    while (size < depth) size <<= 1;
    this.mask = size - 1;
    this.sendTimes = new Float64Array(size);
    this.intendedTimes = openLoop ? new Float64Array(size) : null;
    this.scratch = Buffer.allocUnsafe(Math.max(16_384, depth * workload.maxRequestBytes));
    const fixed = workload.fixed;
    if (fixed !== null && fixed.bytes.length * depth <= 64 * 1024 * 1024) {
      this.prepared = Buffer.allocUnsafe(fixed.bytes.length * depth);
      for (let i = 0; i < depth; i++) fixed.bytes.copy(this.prepared, i * fixed.bytes.length);
    }
  }

  connect(opts: SocketOptions, readBuffer: Buffer): Promise<void> {
    this.server = opts.socket ? `unix socket ${opts.socket}` : `${opts.host}:${opts.port}`;
    return new Promise((resolve, reject) => {
      // Returning false would pause the socket; the reader never needs to.
      const onRead = (nread: number, buf: Buffer) => {
        this.onRead(nread, buf);
        return true;
      };
      let socket: net.Socket;
      if (opts.tls) {
        // TLS sockets do not support `onread`; they deliver decrypted 'data' chunks instead.
        socket = tls.connect({ ...opts.tls, host: opts.host, port: opts.port });
        socket.on('data', (chunk: Buffer) => this.onRead(chunk.length, chunk));
      } else {
        // `onread` reads into one reused buffer: no Buffer and no 'data' event per read.
        const base = { onread: { buffer: readBuffer, callback: onRead } } as const;
        socket = opts.socket
          ? net.connect({ ...base, path: opts.socket })
          : net.connect({ ...base, host: opts.host, port: opts.port });
      }
      socket.setNoDelay(true);
      this.socket = socket;
      const ready = opts.tls ? 'secureConnect' : 'connect';
      const onError = (err: Error) => reject(err);
      socket.once('error', onError);
      socket.once(ready, () => {
        socket.off('error', onError);
        socket.on('error', (err) => this.lost(err));
        socket.on('close', () => this.lost(new Error('connection closed by the server')));
        resolve();
      });
    });
  }

  /** Send control commands (AUTH, HELLO, SELECT) and fail with the server's error if any. */
  handshake(commands: Buffer[]): Promise<void> {
    if (commands.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.handshakeWait = { need: this.reader.replies + commands.length, resolve, reject };
      this.socket!.write(Buffer.concat(commands));
    });
  }

  fill(budget: number): number {
    let n = this.window ? this.depth - this.inFlight : this.inFlight === 0 ? this.depth : 0;
    if (n > budget) n = budget;
    if (n > 0) this.send(n);
    return n;
  }

  /** Write n requests in one socket write; each is timed from now. */
  send(n: number): void {
    const w = this.workload;
    // A buffer is reused only when the previous write has fully left Node: a write still
    // queued holds a reference to its bytes.
    const idle = this.socket!.writableLength === 0;
    let out: Buffer;
    if (this.prepared !== null && idle) {
      out = this.patchPrepared(n);
    } else {
      const need = n * w.maxRequestBytes;
      let buf = this.scratch;
      if (buf.length < need || !idle) {
        buf = Buffer.allocUnsafe(Math.max(need, 16_384));
        this.scratch = buf;
      }
      let pos = 0;
      for (let i = 0; i < n; i++) pos = w.nextTemplate().encode(buf, pos, w.keys, w.values);
      out = buf.subarray(0, pos);
    }
    const now = performance.now();
    const times = this.sendTimes;
    const mask = this.mask;
    let tail = this.tail;
    for (let i = 0; i < n; i++) {
      times[tail] = now;
      tail = (tail + 1) & mask;
    }
    this.tail = tail;
    if (this.inFlight === 0) this.progressMs = now;
    this.inFlight += n;
    this.bytesOut += out.length;
    this.socket!.write(out);
  }

  private patchPrepared(n: number): Buffer {
    const prepared = this.prepared!;
    const fixed = this.workload.fixed!;
    const size = fixed.bytes.length;
    const offsets = fixed.keyOffsets;
    const keys = this.workload.keys;
    for (let i = 0, base = 0; i < n; i++, base += size) {
      for (let k = 0; k < offsets.length; k++) writeKeyDigits(prepared, base + offsets[k]!, keys.nextKey());
    }
    let view = this.preparedViews[n];
    if (view === undefined) {
      view = prepared.subarray(0, n * size);
      this.preparedViews[n] = view;
    }
    return view;
  }

  /** Open loop: send every request whose intended time has come, while the window has room. */
  sendDue(now: number, budget: number): number {
    let n = 0;
    const room = Math.min(this.depth - this.inFlight, budget);
    const intended = this.intendedTimes!;
    const tail = this.tail;
    while (n < room && this.nextIntendedMs <= now) {
      intended[(tail + n) & this.mask] = this.nextIntendedMs;
      this.nextIntendedMs += this.workload.nextIntervalMs();
      n++;
    }
    if (n > 0) this.send(n);
    return n;
  }

  nextWakeMs(): number {
    return this.inFlight < this.depth ? this.nextIntendedMs : Number.POSITIVE_INFINITY;
  }

  /** Every request is sent as soon as it is drawn: none waits. */
  discardPending(): number {
    return 0;
  }

  close(): void {
    this.closing = true;
    this.socket?.destroy();
  }

  counters(): ConnectionCounters {
    const r = this.reader;
    return {
      completed: r.replies - this.handshakeReplies,
      nils: r.nils,
      errors: r.errorsByType,
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      moved: 0,
      ask: 0,
      errorExample: r.firstError,
    };
  }

  longestWait(): ReplyWait | null {
    return this.inFlight > 0
      ? { sinceMs: this.progressMs, outstanding: this.inFlight, server: this.server }
      : null;
  }

  longestGap(): { gapMs: number; endMs: number } {
    return { gapMs: this.maxGapMs, endMs: this.maxGapEndMs };
  }

  private onRead(nread: number, buf: Buffer): void {
    const now = performance.now();
    this.bytesIn += nread;
    let k: number;
    try {
      k = this.reader.feed(buf, nread);
    } catch (err) {
      this.lost(err as Error);
      return;
    }
    if (k === 0) return;
    const wait = this.handshakeWait;
    if (wait !== null) {
      if (this.reader.errorsByType.size > 0) {
        this.handshakeWait = null;
        wait.reject(new Error(this.reader.lastError));
      } else if (this.reader.replies >= wait.need) {
        this.handshakeWait = null;
        this.handshakeReplies = this.reader.replies;
        wait.resolve();
      }
      return;
    }
    const w = this.workload;
    const times = this.sendTimes;
    const intended = this.intendedTimes;
    const mask = this.mask;
    const measureStart = w.measureStartMs;
    // A reply ends a wait that began at the last progress: the longest is kept (STALL).
    const gap = now - this.progressMs;
    if (gap > this.maxGapMs && now >= measureStart) {
      this.maxGapMs = gap;
      this.maxGapEndMs = now;
    }
    this.progressMs = now;
    let head = this.head;
    let measured = 0;
    for (let j = 0; j < k; j++) {
      const sent = times[head]!;
      if (sent >= measureStart) {
        measured++;
        w.latency.recordMs(now - sent);
        if (intended !== null) w.responseTime!.recordMs(now - intended[head]!);
      }
      head = (head + 1) & mask;
    }
    this.head = head;
    this.inFlight -= k;
    w.measuredCompleted += measured;
    w.lastReplyMs = now;
    this.host.onReplies(this, k, now);
  }

  private lost(err: Error): void {
    if (this.closing) return;
    this.closing = true;
    const wait = this.handshakeWait;
    if (wait) {
      this.handshakeWait = null;
      wait.reject(err);
    }
    this.host.onConnectionLost(this, err);
  }
}
