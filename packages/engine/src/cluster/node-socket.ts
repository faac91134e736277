import net from 'node:net';
import tls from 'node:tls';
import type { SocketOptions } from '../load/connection.js';
import type { Workload } from '../load/workload.js';
import { ReplyReader } from '../resp/reply-reader.js';
import { writeKeyDigits } from '../resp/request-template.js';
import type { RequestKeys } from './routing.js';

/** Ring entry of an ASKING sent before an ASK retry: its +OK answers no request of the cell. */
export const ASKING_ENTRY = 255;
const ASKING = Buffer.from('*1\r\n$6\r\nASKING\r\n');

/** What a node socket reports to the cluster connection that owns it. */
export interface NodeSocketOwner {
  /** `completed` replies answered requests of the cell (redirects followed are not among them). */
  onNodeReplies(completed: number, now: number): void;
  /** A MOVED or ASK reply to the request in ring entry `entry`; true if it was sent again. */
  redirect(from: NodeSocket, message: string, entry: number): boolean;
  /** A redirected request completed here: it leaves the pipeline of node `home`, where it was first sent. */
  release(home: number): void;
  onNodeLost(err: Error): void;
}

/**
 * One raw socket of a cluster connection to one primary, and its own pipeline of depth P. Like
 * LoadConnection, requests are pre-encoded where their length is fixed (only key digits
 * rewritten) and replies are timed from a ring of send times; the ring also keeps each request's
 * test, key number and redirect count, so a MOVED or ASK reply can be sent again elsewhere with
 * its first send time.
 *
 * A redirected request stays in the pipeline of the node it was first sent to (its home) until
 * its final reply, wherever that comes from: so each node keeps at most P of its own requests in
 * flight, the connection at most P x primaries, and every ring holds at most twice that (each
 * request, plus an ASKING before it).
 */
export class NodeSocket {
  readonly reader = new ReplyReader();
  socket: net.Socket | null = null;
  bytesIn = 0;
  bytesOut = 0;
  /** Replies that answered no request: handshake, ASKING, redirects followed. */
  nonRequestReplies = 0;
  /** Requests first sent here and not finally answered (here or, redirected, elsewhere). */
  inFlight = 0;
  /** When this socket last made progress: its last reply, or the send that ended an idle spell. */
  progressMs = 0;
  /** The longest wait for a reply that ended in the measured phase, and when it ended. */
  maxGapMs = 0;
  maxGapEndMs = 0;

  readonly sendTimes: Float64Array;
  readonly intendedTimes: Float64Array | null;
  readonly templateOf: Uint8Array;
  readonly keyOf: Float64Array;
  readonly redirectsOf: Uint8Array;
  /** A redirected request's home node (index in the connection); read only where redirectsOf > 0. */
  readonly homeOf: Uint16Array;
  private readonly mask: number;
  private head = 0;
  private tail = 0;
  /** Requests appended since the last flush, and where they are being encoded. */
  private batchCount = 0;
  private batchPos = 0;
  private batchPrepared = false;
  private scratch: Buffer;
  private readonly prepared: Buffer | null = null;
  private readonly preparedViews: Buffer[] = [];
  // Redirect replies seen while feeding the reader: [ordinal, message] pairs, rare.
  private readonly pendingRedirects: (number | string)[] = [];
  private closing = false;
  private handshakeWait: { need: number; resolve: () => void; reject: (e: Error) => void } | null = null;

  constructor(
    private readonly owner: NodeSocketOwner,
    private readonly workload: Workload,
    /** This node's index among the connection's node sockets. */
    readonly index: number,
    /** The pipeline depth P: the most requests one send can put on this socket. */
    private readonly batchMax: number,
    /** Requests the whole connection can have in flight (P x primaries). */
    connectionDepth: number,
    openLoop: boolean,
    readonly address: { host: string; port: number },
  ) {
    // Redirects can gather every request of the connection on one node, each after an ASKING.
    let size = 1;
    while (size < 2 * connectionDepth + 2) size <<= 1;
    this.mask = size - 1;
    this.sendTimes = new Float64Array(size);
    this.intendedTimes = openLoop ? new Float64Array(size) : null;
    this.templateOf = new Uint8Array(size);
    this.keyOf = new Float64Array(size);
    this.redirectsOf = new Uint8Array(size);
    this.homeOf = new Uint16Array(size);
    this.scratch = Buffer.allocUnsafe(Math.max(16_384, batchMax * workload.maxRequestBytes));
    const fixed = workload.fixed;
    if (fixed !== null && fixed.bytes.length * batchMax <= 64 * 1024 * 1024) {
      this.prepared = Buffer.allocUnsafe(fixed.bytes.length * batchMax);
      for (let i = 0; i < batchMax; i++) fixed.bytes.copy(this.prepared, i * fixed.bytes.length);
    }
    this.reader.onRedirect = (message, ordinal) => {
      this.pendingRedirects.push(ordinal, message);
    };
  }

  connect(opts: SocketOptions, readBuffer: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      let socket: net.Socket;
      if (opts.tls) {
        socket = tls.connect({ ...opts.tls, host: this.address.host, port: this.address.port });
        socket.on('data', (chunk: Buffer) => this.onRead(chunk.length, chunk));
      } else {
        const onread = {
          buffer: readBuffer,
          callback: (n: number, b: Buffer) => {
            this.onRead(n, b);
            return true;
          },
        };
        socket = net.connect({ onread, host: this.address.host, port: this.address.port });
      }
      socket.setNoDelay(true);
      this.socket = socket;
      const onError = (err: Error) => reject(err);
      socket.once('error', onError);
      socket.once(opts.tls ? 'secureConnect' : 'connect', () => {
        socket.off('error', onError);
        socket.on('error', (err) => this.lost(err));
        socket.on('close', () =>
          this.lost(new Error(`connection to ${this.describe()} closed by the server`)),
        );
        resolve();
      });
    });
  }

  describe(): string {
    return `${this.address.host}:${this.address.port}`;
  }

  /** Ring entries awaiting a reply here: requests, redirected ones sent here, ASKINGs. */
  outstanding(): number {
    return (this.tail - this.head) & this.mask;
  }

  handshake(commands: Buffer[]): Promise<void> {
    if (commands.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.handshakeWait = { need: this.reader.replies + commands.length, resolve, reject };
      this.socket!.write(Buffer.concat(commands));
    });
  }

  /** Add one request to the batch that flush() writes. */
  append(template: number, key: number, keys: RequestKeys, intended: number): void {
    const w = this.workload;
    if (this.batchCount === 0) {
      // A buffer is reused only once the previous write has left Node (as in LoadConnection).
      const idle = this.socket!.writableLength === 0;
      this.batchPrepared = this.prepared !== null && idle;
      this.batchPos = 0;
      if (!this.batchPrepared && (!idle || this.scratch.length < this.batchMax * w.maxRequestBytes))
        this.scratch = Buffer.allocUnsafe(Math.max(16_384, this.batchMax * w.maxRequestBytes));
    }
    if (this.batchPrepared) {
      const fixed = w.fixed!;
      const base = this.batchCount * fixed.bytes.length;
      const offsets = fixed.keyOffsets;
      for (let k = 0; k < offsets.length; k++)
        writeKeyDigits(this.prepared!, base + offsets[k]!, keys.nextKey());
    } else {
      this.batchPos = w.templates[template]!.encode(this.scratch, this.batchPos, keys, w.values);
    }
    const e = (this.tail + this.batchCount) & this.mask;
    this.templateOf[e] = template;
    this.keyOf[e] = key;
    this.redirectsOf[e] = 0;
    if (this.intendedTimes !== null) this.intendedTimes[e] = intended;
    this.batchCount++;
  }

  /** Write the batch; every request in it is timed from `now`. */
  flush(now: number): void {
    const n = this.batchCount;
    if (n === 0) return;
    this.batchCount = 0;
    let out: Buffer;
    if (this.batchPrepared) {
      out = this.preparedViews[n] ?? this.prepared!.subarray(0, n * this.workload.fixed!.bytes.length);
      this.preparedViews[n] = out;
    } else out = this.scratch.subarray(0, this.batchPos);
    const times = this.sendTimes;
    let tail = this.tail;
    if (tail === this.head) this.progressMs = now;
    for (let i = 0; i < n; i++) {
      times[tail] = now;
      tail = (tail + 1) & this.mask;
    }
    this.tail = tail;
    this.inFlight += n;
    this.bytesOut += out.length;
    this.socket!.write(out);
  }

  /**
   * Send a redirected request again, keeping its first send time: its latency runs from the
   * first send to the final reply. ASK: preceded by ASKING, whose reply is skipped.
   */
  resend(from: NodeSocket, entry: number, keys: RequestKeys, asking: boolean): void {
    const w = this.workload;
    const template = from.templateOf[entry]!;
    const buf = Buffer.allocUnsafe(w.maxRequestBytes + (asking ? ASKING.length : 0));
    let pos = 0;
    if (asking) {
      pos = ASKING.copy(buf, 0);
      this.push(ASKING_ENTRY, 0, 0, 0, 0, 0);
    }
    pos = w.templates[template]!.encode(buf, pos, keys, w.values);
    const redirects = from.redirectsOf[entry]!;
    if (this.tail === this.head) this.progressMs = performance.now();
    this.push(
      template,
      from.keyOf[entry]!,
      redirects + 1,
      redirects === 0 ? from.index : from.homeOf[entry]!,
      from.sendTimes[entry]!,
      from.intendedTimes ? from.intendedTimes[entry]! : 0,
    );
    this.bytesOut += pos;
    this.socket!.write(buf.subarray(0, pos));
  }

  private push(
    template: number,
    key: number,
    redirects: number,
    home: number,
    sent: number,
    intended: number,
  ): void {
    const e = this.tail;
    this.templateOf[e] = template;
    this.keyOf[e] = key;
    this.redirectsOf[e] = redirects;
    this.homeOf[e] = home;
    this.sendTimes[e] = sent;
    if (this.intendedTimes !== null) this.intendedTimes[e] = intended;
    this.tail = (e + 1) & this.mask;
  }

  close(): void {
    this.closing = true;
    this.socket?.destroy();
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
        this.nonRequestReplies = this.reader.replies;
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
    const redirects = this.pendingRedirects;
    let r = 0;
    let ordinal = this.reader.replies - k;
    let head = this.head;
    let completed = 0;
    let own = 0;
    let measured = 0;
    for (let j = 0; j < k; j++, ordinal++) {
      const e = head;
      head = (head + 1) & mask;
      if (this.templateOf[e] === ASKING_ENTRY) {
        this.nonRequestReplies++;
        continue;
      }
      if (r < redirects.length && redirects[r] === ordinal) {
        const message = redirects[r + 1] as string;
        r += 2;
        if (this.owner.redirect(this, message, e)) {
          this.nonRequestReplies++;
          continue;
        }
        // Not followed (too many hops): the reply is final, an error of its type.
        const type = message.slice(0, message.indexOf(' '));
        this.reader.errorsByType.set(type, (this.reader.errorsByType.get(type) ?? 0) + 1);
      }
      completed++;
      if (this.redirectsOf[e] === 0) own++;
      else this.owner.release(this.homeOf[e]!);
      const sent = times[e]!;
      if (sent >= measureStart) {
        measured++;
        w.latency.recordMs(now - sent);
        if (intended !== null) w.responseTime!.recordMs(now - intended[e]!);
      }
    }
    if (r > 0) redirects.length = 0;
    this.head = head;
    this.inFlight -= own;
    if (completed === 0) return;
    w.measuredCompleted += measured;
    w.lastReplyMs = now;
    this.owner.onNodeReplies(completed, now);
  }

  private lost(err: Error): void {
    if (this.closing) return;
    this.closing = true;
    const wait = this.handshakeWait;
    if (wait) {
      this.handshakeWait = null;
      wait.reject(err);
    }
    this.owner.onNodeLost(err);
  }
}
