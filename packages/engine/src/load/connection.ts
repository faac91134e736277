// The module's binding, not the global: Node 20's global `performance` is a lazy getter that a
// profile of the P16 path showed at 1% of the client's CPU, read on every send and every read.
import { performance } from 'node:perf_hooks';
import { writeKeyDigits } from '../resp/request-template.js';
import type {
  ConnectionCounters,
  ConnectionFactory,
  ConnectionHost,
  MeasuredConnection,
  ReplyWait,
} from './measured-connection.js';
import type { LoadPlan } from './plan.js';
import { ReplySocket } from './reply-socket.js';
import type { SocketOptions } from './socket-options.js';
import type { Workload } from './workload.js';

/** Connections to one server: one socket each, its own pipeline of depth P. */
export function standaloneConnections(plan: LoadPlan): ConnectionFactory {
  const window = plan.pipelineMode === 'window';
  const openLoop = plan.rateOpsPerSec !== null;
  return {
    followsRedirects: false,
    create: (host, workload) => new LoadConnection(host, workload, plan.pipelineDepth, window, openLoop),
  };
}

/**
 * One measured connection: writes requests from the workload's templates and times each reply.
 * Replies arrive in request order (RESP is FIFO per connection), so send times live in a ring.
 */
export class LoadConnection extends ReplySocket implements MeasuredConnection {
  /** Rate mode: when this connection's next request is meant to leave (ms, performance.now()). */
  nextIntendedMs = Number.POSITIVE_INFINITY;
  /** When a reply last made room in a full window: a request due before then waited on the server. */
  private roomSinceMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly host: ConnectionHost,
    workload: Workload,
    /** The pipeline depth P. */
    private readonly depth: number,
    /** Window mode (refill as replies arrive) rather than batch (P, then wait for all P). */
    private readonly window: boolean,
    openLoop: boolean,
  ) {
    super(workload, depth, depth, openLoop);
  }

  async open(opts: SocketOptions, handshake: Buffer[], readBuffer: Buffer): Promise<void> {
    await this.connect(opts, readBuffer);
    await this.handshake(handshake);
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
    this.writeTimed(out, n, performance.now());
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
    return this.preparedView(n);
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
    if (n > 0) {
      this.send(n);
      this.recordLateness(tail, n);
    }
    return n;
  }

  /** Each measured request's send time against max(intended time, room in the window). */
  private recordLateness(tail: number, n: number): void {
    const w = this.workload;
    // One write sent all n: they share its send time (writeTimed).
    const sent = this.sendTimes[tail]!;
    if (sent < w.measureStartMs) return;
    const late = w.sendLateness!;
    const intended = this.intendedTimes!;
    const from = this.roomSinceMs;
    for (let i = 0; i < n; i++) late.recordMs(sent - Math.max(intended[(tail + i) & this.mask]!, from));
  }

  nextWakeMs(): number {
    return this.inFlight < this.depth ? this.nextIntendedMs : Number.POSITIVE_INFINITY;
  }

  /** Every request is sent as soon as it is drawn: none waits. */
  discardPending(): number {
    return 0;
  }

  counters(): ConnectionCounters {
    const r = this.reader;
    return {
      completed: r.replies - this.nonRequestReplies,
      errors: r.errorsByType,
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      moved: 0,
      ask: 0,
      errorExample: r.firstError,
      wrongTypes: r.wrongTypes,
      firstWrongType: r.firstWrongType,
    };
  }

  longestWait(): ReplyWait | null {
    return this.inFlight > 0
      ? { sinceMs: this.progressMs, outstanding: this.inFlight, server: this.server }
      : null;
  }

  protected timeReplies(k: number, now: number, measureStart: number): void {
    const w = this.workload;
    const times = this.sendTimes;
    const intended = this.intendedTimes;
    const mask = this.mask;
    let head = this.head;
    let measured = 0;
    // Null replies among these k, if any: each is counted only when its request was measured.
    const marks = this.newNils();
    let ordinal = this.reader.replies - k;
    let nils = 0;
    for (let j = 0; j < k; j++, ordinal++) {
      const sent = times[head]!;
      let nil = 0;
      if (marks !== null) {
        nil = marks[ordinal & mask]!;
        marks[ordinal & mask] = 0;
      }
      if (sent >= measureStart) {
        measured++;
        nils += nil;
        w.latency.recordMs(now - sent);
        if (intended !== null) w.responseTime!.recordMs(now - intended[head]!);
      }
      head = (head + 1) & mask;
    }
    this.head = head;
    if (intended !== null && this.inFlight >= this.depth) this.roomSinceMs = now;
    this.inFlight -= k;
    w.measuredCompleted += measured;
    w.measuredNils += nils;
    w.lastReplyMs = now;
    this.host.onReplies(this, k, now);
  }

  protected onLost(err: Error): void {
    this.host.onConnectionLost(this, err);
  }
}
