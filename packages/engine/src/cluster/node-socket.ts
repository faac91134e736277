// The module's binding, not the global: Node 20's global `performance` is a lazy getter that a
// profile of the P16 path showed at 1% of the client's CPU, read on every send and every read.
import { performance } from 'node:perf_hooks';
import { ReplySocket } from '../load/reply-socket.js';
import type { Workload } from '../load/workload.js';
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
  release(home: number, now: number): void;
  onNodeLost(err: Error): void;
}

/**
 * One raw socket of a cluster connection to one primary, and its own pipeline of depth P. Its
 * lifecycle is LoadConnection's (ReplySocket): requests are pre-encoded where their length is
 * fixed (only key digits rewritten) and replies are timed from a ring of send times; the ring also
 * keeps each request's test, key number and redirect count, so a MOVED or ASK reply can be sent
 * again elsewhere with its first send time.
 *
 * A redirected request stays in the pipeline of the node it was first sent to (its home) until
 * its final reply, wherever that comes from: so each node keeps at most P of its own requests in
 * flight, the connection at most P x primaries, and every ring holds at most twice that (each
 * request, plus an ASKING before it).
 */
export class NodeSocket extends ReplySocket {
  readonly templateOf: Uint8Array;
  readonly keyOf: Float64Array;
  readonly redirectsOf: Uint8Array;
  /** A redirected request's home node (index in the connection); read only where redirectsOf > 0. */
  readonly homeOf: Uint16Array;
  /** Requests appended since the last flush, and where they are being encoded. */
  private batchCount = 0;
  private batchPos = 0;
  private batchPrepared = false;
  // Redirect replies seen while feeding the reader: [ordinal, message] pairs, rare.
  private readonly pendingRedirects: (number | string)[] = [];
  /** Open loop: when a reply last made room in this node's full pipeline (as LoadConnection's). */
  private roomSinceMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly owner: NodeSocketOwner,
    workload: Workload,
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
    super(workload, batchMax, 2 * connectionDepth + 2, openLoop);
    const size = this.mask + 1;
    this.templateOf = new Uint8Array(size);
    this.keyOf = new Float64Array(size);
    this.redirectsOf = new Uint8Array(size);
    this.homeOf = new Uint16Array(size);
    this.reader.onRedirect = (message, ordinal) => {
      this.pendingRedirects.push(ordinal, message);
    };
  }

  /** The cell's reply types, and ASKING's +OK. */
  protected override replyTypes(): string | null {
    const types = this.workload.replyTypes;
    return types === null ? null : `${types}+`;
  }

  /** Ring entries awaiting a reply here: requests, redirected ones sent here, ASKINGs. */
  outstanding(): number {
    return (this.tail - this.head) & this.mask;
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

  /**
   * Write the batch; every request in it is timed from `now`. Open loop: each measured request's
   * send lateness is recorded against the latest of its intended time, when a reply last made room
   * on this node, and `notBeforeMs` (when the connection could draw again after a full pool): a
   * request that waited for either waited on a server, not on the client.
   */
  flush(now: number, notBeforeMs: number): void {
    const n = this.batchCount;
    if (n === 0) return;
    this.batchCount = 0;
    const tail = this.tail;
    const out = this.batchPrepared ? this.preparedView(n) : this.scratch.subarray(0, this.batchPos);
    this.writeTimed(out, n, now);
    const w = this.workload;
    const intended = this.intendedTimes;
    if (intended === null || now < w.measureStartMs) return;
    const late = w.sendLateness!;
    const from = Math.max(this.roomSinceMs, notBeforeMs);
    for (let i = 0; i < n; i++) late.recordMs(now - Math.max(intended[(tail + i) & this.mask]!, from));
  }

  /** A request of this node's own pipeline completed: a full pipeline has room from `now` on. */
  freed(k: number, now: number): void {
    if (this.intendedTimes !== null && this.inFlight >= this.batchMax) this.roomSinceMs = now;
    this.inFlight -= k;
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

  protected timeReplies(k: number, now: number, measureStart: number): void {
    // Redirect replies among these k: their ordinals, and the next one to meet.
    const redirects = this.pendingRedirects;
    let r = 0;
    let ordinal = this.reader.replies - k;
    // Replies that answered requests, those first sent here, those sent after measureStart.
    let completed = 0;
    let own = 0;
    let measured = 0;
    const w = this.workload;
    const times = this.sendTimes;
    const intended = this.intendedTimes;
    const mask = this.mask;
    let head = this.head;
    // Null replies among these k, if any: each is counted only when its request was measured.
    const marks = this.newNils();
    let nils = 0;
    for (let j = 0; j < k; j++, ordinal++) {
      const e = head;
      head = (head + 1) & mask;
      let nil = 0;
      if (marks !== null) {
        nil = marks[ordinal & mask]!;
        marks[ordinal & mask] = 0;
      }
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
      else this.owner.release(this.homeOf[e]!, now);
      const sent = times[e]!;
      if (sent >= measureStart) {
        measured++;
        nils += nil;
        w.latency.recordMs(now - sent);
        if (intended !== null) w.responseTime!.recordMs(now - intended[e]!);
      }
    }
    if (r > 0) redirects.length = 0;
    this.head = head;
    if (own > 0) this.freed(own, now);
    if (completed === 0) return;
    w.measuredCompleted += measured;
    w.measuredNils += nils;
    w.lastReplyMs = now;
    this.owner.onNodeReplies(completed, now);
  }

  protected onLost(err: Error): void {
    this.owner.onNodeLost(err);
  }
}
