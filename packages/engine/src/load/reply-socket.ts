// The module's binding, not the global: Node 20's global `performance` is a lazy getter that a
// profile of the P16 path showed at 1% of the client's CPU, read on every send and every read.

import net from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { ReplyLimitError, serverBrokeLimit } from '../resp/reply-limits.js';
import { ReplyReader } from '../resp/reply-reader.js';
import type { ReplyGap } from './measured-connection.js';
import type { SocketOptions } from './socket-options.js';
import type { Workload } from './workload.js';

/** The handshake (AUTH, HELLO, SELECT) failed: the server refused it, or the socket was lost during it. */
export class HandshakeFailure extends Error {
  /** Which server, when the opener names it (cluster mode: the node); else the target's. */
  where: string | null = null;
}

/**
 * One measured socket's lifecycle, the same for a standalone connection (LoadConnection) and a
 * cluster node's socket (NodeSocket): connect over TCP, a unix socket or TLS; the handshake; feed
 * every read to the reply reader; keep the reply gap for the reply deadline and STALL; report the
 * socket's loss once. It also holds what both send with: a ring of send times (replies arrive in
 * request order: RESP is FIFO per connection) and pre-encoded copies of a fixed-length request.
 *
 * A subclass times its replies (timeReplies) and says where a loss goes (onLost). A worker drives
 * one kind of connection only, so each of those calls sees one class and stays monomorphic.
 */
export abstract class ReplySocket {
  readonly reader = new ReplyReader();
  socket: net.Socket | null = null;
  /** The server, for messages: `host:port` or `unix socket PATH`. */
  server = '';
  bytesIn = 0;
  bytesOut = 0;
  /** Replies that answered no request of the cell: the handshake's (cluster mode: ASKING, redirects followed). */
  nonRequestReplies = 0;
  /** Requests sent here and not answered yet (cluster mode: not finally answered, here or elsewhere). */
  inFlight = 0;
  /**
   * When this socket last made progress: its last reply, or the send that ended an idle spell.
   * A watchdog in the driver compares it with the clock: no timer per request.
   */
  progressMs = 0;
  private maxGapMs = 0;
  /** The reader's null replies as of the last newNils(). */
  private nilsSeen = 0;
  private maxGapEndMs = 0;

  readonly sendTimes: Float64Array;
  readonly intendedTimes: Float64Array | null;
  protected readonly mask: number;
  protected head = 0;
  protected tail = 0;
  protected scratch: Buffer;
  // Pre-encoded copies of a fixed-length request, one per pipeline slot, and views of the
  // first n of them: a send rewrites only the key digits instead of encoding whole requests.
  protected readonly prepared: Buffer | null = null;
  private readonly preparedViews: Buffer[] = [];
  private closing = false;
  private handshakeWait: { need: number; resolve: () => void; reject: (e: Error) => void } | null = null;

  constructor(
    protected readonly workload: Workload,
    /** The pipeline depth P: the most requests one write carries. */
    batchMax: number,
    /** The ring's least size: the most requests (and ASKINGs) ever awaiting a reply at once. */
    ringEntries: number,
    openLoop: boolean,
  ) {
    let size = 1;
    while (size < ringEntries) size <<= 1;
    this.mask = size - 1;
    this.sendTimes = new Float64Array(size);
    this.intendedTimes = openLoop ? new Float64Array(size) : null;
    // Replies never outnumber the ring's entries awaiting them, so the reader's marks fit the same size.
    this.reader.trackNils(this.mask);
    this.scratch = Buffer.allocUnsafe(Math.max(16_384, batchMax * workload.maxRequestBytes));
    const fixed = workload.fixed;
    if (fixed !== null && fixed.bytes.length * batchMax <= 64 * 1024 * 1024) {
      this.prepared = Buffer.allocUnsafe(fixed.bytes.length * batchMax);
      for (let i = 0; i < batchMax; i++) fixed.bytes.copy(this.prepared, i * fixed.bytes.length);
    }
  }

  /** Open the socket; resolves once connected (TLS: once secure), rejects with the socket's error. */
  connect(opts: SocketOptions, readBuffer: Buffer): Promise<void> {
    this.server = opts.socket ? `unix socket ${opts.socket}` : `${opts.host}:${opts.port}`;
    return new Promise((resolve, reject) => {
      let socket: net.Socket;
      if (opts.tls) {
        // TLS sockets do not support `onread`; they deliver decrypted 'data' chunks instead.
        socket = tls.connect({ ...opts.tls, host: opts.host, port: opts.port });
        socket.on('data', (chunk: Buffer) => this.onRead(chunk.length, chunk));
      } else {
        // `onread` reads into one reused buffer: no Buffer and no 'data' event per read. Returning
        // false would pause the socket; the reader never needs to.
        const onread = {
          buffer: readBuffer,
          callback: (nread: number, buf: Buffer) => {
            this.onRead(nread, buf);
            return true;
          },
        };
        socket = opts.socket
          ? net.connect({ onread, path: opts.socket })
          : net.connect({ onread, host: opts.host, port: opts.port });
      }
      socket.setNoDelay(true);
      this.socket = socket;
      const onError = (err: Error) => reject(err);
      socket.once('error', onError);
      socket.once(opts.tls ? 'secureConnect' : 'connect', () => {
        socket.off('error', onError);
        socket.on('error', (err) => this.lost(err));
        socket.on('close', () => this.lost(new Error(`connection to ${this.server} closed by the server`)));
        resolve();
      });
    });
  }

  /** Send control commands (AUTH, HELLO, SELECT); rejects with a HandshakeFailure. */
  handshake(commands: Buffer[]): Promise<void> {
    if (commands.length === 0) {
      this.reader.expectReplyTypes(this.replyTypes());
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.handshakeWait = {
        need: this.reader.replies + commands.length,
        resolve,
        // A reply past a limit is the server's fault, said as such, not a refused handshake.
        reject: (err) => reject(err instanceof ReplyLimitError ? err : new HandshakeFailure(err.message)),
      };
      this.socket!.write(Buffer.concat(commands));
    });
  }

  close(): void {
    this.closing = true;
    this.socket?.destroy();
  }

  /** The longest wait for a reply that ended in the measured phase, and when it ended. */
  longestGap(): ReplyGap {
    return { gapMs: this.maxGapMs, endMs: this.maxGapEndMs };
  }

  /** Time the next n ring entries from `now` and write `out` (their requests) in one socket write. */
  protected writeTimed(out: Buffer, n: number, now: number): void {
    const times = this.sendTimes;
    const mask = this.mask;
    let tail = this.tail;
    if (tail === this.head) this.progressMs = now;
    for (let i = 0; i < n; i++) {
      times[tail] = now;
      tail = (tail + 1) & mask;
    }
    this.tail = tail;
    this.inFlight += n;
    this.bytesOut += out.length;
    this.socket!.write(out);
  }

  /** The first n pre-encoded requests, as one Buffer made once per n. */
  protected preparedView(n: number): Buffer {
    let view = this.preparedViews[n];
    if (view === undefined) {
      view = this.prepared!.subarray(0, n * this.workload.fixed!.bytes.length);
      this.preparedViews[n] = view;
    }
    return view;
  }

  /**
   * The reader's marks of null replies (by ordinal & mask) when the replies since the last call
   * include one, else null: most reads have none, and their replies skip the marks.
   */
  protected newNils(): Uint8Array | null {
    const r = this.reader;
    if (r.nils === this.nilsSeen) return null;
    this.nilsSeen = r.nils;
    return r.nilMarks;
  }

  /** The type bytes a reply to the cell's requests may have (Workload.replyTypes); a subclass may add its own. */
  protected replyTypes(): string | null {
    return this.workload.replyTypes;
  }

  /** `count` replies (count >= 1) came in at `now`: time those sent at or after `measureStart`. */
  protected abstract timeReplies(count: number, now: number, measureStart: number): void;

  /** The socket is gone (its error, or the server closed it) while the cell needed it. */
  protected abstract onLost(err: Error): void;

  private onRead(nread: number, buf: Buffer): void {
    const now = performance.now();
    this.bytesIn += nread;
    let k: number;
    try {
      k = this.reader.feed(buf, nread);
    } catch (err) {
      this.lost(err instanceof ReplyLimitError ? serverBrokeLimit(this.server, err.message) : (err as Error));
      return;
    }
    if (k === 0) return;
    if (this.handshakeWait !== null) {
      this.handshakeReplied();
      return;
    }
    const measureStart = this.workload.measureStartMs;
    // A reply ends a wait that began at the last progress: the longest is kept (STALL).
    const gap = now - this.progressMs;
    if (gap > this.maxGapMs && now >= measureStart) {
      this.maxGapMs = gap;
      this.maxGapEndMs = now;
    }
    this.progressMs = now;
    this.timeReplies(k, now, measureStart);
  }

  private handshakeReplied(): void {
    const wait = this.handshakeWait!;
    if (this.reader.errorsByType.size > 0) {
      this.handshakeWait = null;
      wait.reject(new Error(this.reader.lastError));
    } else if (this.reader.replies >= wait.need) {
      this.handshakeWait = null;
      this.nonRequestReplies = this.reader.replies;
      // From here on every reply answers a request of the cell: its type is checked.
      this.reader.expectReplyTypes(this.replyTypes());
      wait.resolve();
    }
  }

  private lost(err: Error): void {
    if (this.closing) return;
    this.closing = true;
    const wait = this.handshakeWait;
    if (wait) {
      this.handshakeWait = null;
      wait.reject(err);
    }
    this.onLost(err);
  }
}
