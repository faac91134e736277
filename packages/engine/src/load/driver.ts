// The module's binding, not the global: Node 20's global `performance` is a lazy getter that a
// profile of the P16 path showed at 1% of the client's CPU, read on every send and every read.
import { performance } from 'node:perf_hooks';
import { encodeHistogram, type IncompleteReason } from '@redis-benchdb/result';
import { cellReplyTypes, compileTest } from '../commands.js';
import { describeTarget, explainHandshakeError } from '../control.js';
import { createKeyGenerator, Rng } from '../keys.js';
import { DEFAULT_REPLY_TIMEOUT_SEC, STALL_WARN_MS } from '../options.js';
import { ReplyLimitError } from '../resp/reply-limits.js';
import type {
  ConnectionFactory,
  ConnectionHost,
  MeasuredConnection,
  ReplyGap,
} from './measured-connection.js';
import type { LoadPlan, WorkerReport } from './plan.js';
import { HandshakeFailure } from './reply-socket.js';
import { handshakeCommands, toSocketOptions } from './socket-options.js';
import { createValueSource } from './values.js';
import { Workload } from './workload.js';

const PHASE_RUNNING = 0;
const PHASE_STOPPING = 1;
const PHASE_DONE = 2;
/**
 * Open loop: how long before a request is due the driver stops sleeping and polls. Node's timers
 * fire on whole milliseconds, so a timer alone sent requests 0.6-0.9 ms late at the median and
 * 1.2-4 ms at p99 (docs/BENCHMARKS.md, "a sub-millisecond send schedule"): the whole budget of a
 * 1 ms objective. Polling with setImmediate for the last 2 ms (a timer may fire up to 1 ms late,
 * more when the host is slow to wake) sends within a few microseconds of the intended time; the
 * price is the CPU of those polls, which the event-loop figure leaves out (spinIdleMs).
 */
const SPIN_MS = 2;

/**
 * Drives one worker's connections: closed loop (window or batch) or open loop (rate), counts
 * the measured phase, and produces a WorkerReport. Knows nothing of threads; worker.ts wraps it.
 */
export class Driver implements ConnectionHost {
  readonly workload: Workload;
  private readonly conns: MeasuredConnection[] = [];
  private readonly openLoop: boolean;
  private phase = PHASE_RUNNING;
  /** Measured requests this worker may still take on (draw keys for); +Infinity for a duration. */
  private remaining: number;
  /** Requests taken on and not yet answered: in flight, or waiting in a cluster node's pending pool. */
  private outstanding = 0;
  private measuring = false;
  private error: string | null = null;
  private errorKind: IncompleteReason | null = null;
  /** The wait that hit the reply deadline, kept as the cell's longest gap. */
  private timedOut: ReplyGap | null = null;
  private readonly replyTimeoutMs: number;
  private watchdog: NodeJS.Timeout | null = null;
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  /** Open loop: time spent polling for the next due request, with no I/O in between (measured phase). */
  private spinIdleMs = 0;
  /** When the last tick that chose to poll again ended; null when it slept or did not poll. */
  private spinSinceMs: number | null = null;
  private stopTimer: NodeJS.Timeout | null = null;
  private eluStart: ReturnType<typeof performance.eventLoopUtilization> | null = null;
  /** The counters when measuring began: the report gives the measured phase as the difference. */
  private snapshot = this.totals();
  private finished!: (r: WorkerReport) => void;
  readonly done: Promise<WorkerReport>;

  constructor(
    private readonly plan: LoadPlan,
    /** Standalone or cluster connections: how they route requests is theirs to know. */
    private readonly connections: ConnectionFactory,
  ) {
    this.openLoop = plan.rateOpsPerSec !== null;
    this.remaining = plan.requests ?? Number.POSITIVE_INFINITY;
    this.replyTimeoutMs = (plan.target.replyTimeoutSec ?? DEFAULT_REPLY_TIMEOUT_SEC) * 1000;
    const rng = new Rng(plan.seed * 7919 + plan.workerIndex);
    const templates = plan.tests.map((t) => compileTest(t, plan.prefix, plan.valueMax));
    const keys = createKeyGenerator({
      pattern: plan.keyPattern,
      keyspaceSize: plan.keyspaceSize,
      seed: plan.seed + plan.workerIndex * 1_000_003,
      zipfExponent: plan.zipfExponent,
      stream: plan.workerIndex,
      streams: plan.workers,
    });
    const rate =
      plan.rateOpsPerSec === null
        ? null
        : {
            perConnectionOpsPerSec: plan.rateOpsPerSec / plan.connections,
            poisson: plan.poisson,
            seed: plan.seed + 17 * plan.workerIndex,
          };
    this.workload = new Workload(
      templates,
      Uint8Array.from(plan.cycle),
      keys,
      createValueSource(plan.valueMin, plan.valueMax, rng),
      rate,
      cellReplyTypes(plan.tests),
    );
    this.done = new Promise((resolve) => {
      this.finished = resolve;
    });
  }

  /** Open every connection and run the handshake on each. Throws with the server's words. */
  async connect(): Promise<void> {
    const target = this.plan.target;
    const socketOptions = toSocketOptions(target);
    const handshake = handshakeCommands(target);
    // One read buffer for every connection of this worker: `onread` consumes it synchronously.
    const readBuffer = Buffer.allocUnsafe(256 * 1024);
    for (let i = 0; i < this.plan.connections; i++)
      this.conns.push(this.connections.create(this, this.workload, i));
    await Promise.all(
      this.conns.map((c) =>
        c.open(socketOptions, handshake, readBuffer).catch((err: Error) => {
          if (!(err instanceof HandshakeFailure)) throw err;
          throw new Error(explainHandshakeError(err.where ?? describeTarget(target), err.message));
        }),
      ),
    );
  }

  start(measure: boolean, durationMs: number | null = null): void {
    if (measure) this.beginMeasure(durationMs);
    if (this.replyTimeoutMs > 0) {
      // One timer per worker, a few times per deadline: the hot path only stores a timestamp.
      const period = Math.min(1000, Math.max(20, this.replyTimeoutMs / 8));
      this.watchdog = setInterval(this.checkReplies, period);
    }
    if (this.openLoop) {
      const now = performance.now();
      // Spread the first sends over one interval so connections do not fire in lockstep.
      this.conns.forEach((c, i) => {
        c.nextIntendedMs = now + (i / this.conns.length) * this.workload.nextIntervalMs();
      });
      this.tick();
    } else {
      for (const c of this.conns) this.fill(c);
    }
    this.checkDone();
  }

  /** Start counting; with a duration, stop sending that long from now (timed here, not by the main thread). */
  beginMeasure(durationMs: number | null = null): void {
    if (this.measuring) return;
    this.measuring = true;
    if (durationMs !== null) this.stopTimer = setTimeout(() => this.stop(), durationMs);
    this.eluStart = performance.eventLoopUtilization();
    this.spinIdleMs = 0;
    // Requests drawn in the warmup and not yet sent would be measured without being counted.
    this.discardPending();
    this.snapshot = this.totals();
    this.workload.measureStartMs = performance.now();
  }

  /** The counters of all connections, summed: taken when measuring begins and at the end. */
  private totals() {
    const errors = new Map<string, number>();
    let bytesIn = 0;
    let bytesOut = 0;
    let completed = 0;
    let moved = 0;
    let ask = 0;
    for (const conn of this.conns) {
      const c = conn.counters();
      for (const [k, v] of c.errors) errors.set(k, (errors.get(k) ?? 0) + v);
      bytesIn += c.bytesIn;
      bytesOut += c.bytesOut;
      completed += c.completed;
      moved += c.moved;
      ask += c.ask;
    }
    return { errors, bytesIn, bytesOut, completed, moved, ask };
  }

  /** Stop sending; finish once every request in flight has its reply. */
  stop(): void {
    if (this.phase === PHASE_RUNNING) {
      this.phase = PHASE_STOPPING;
      this.discardPending();
    }
    this.checkDone();
  }

  private discardPending(): void {
    for (const c of this.conns) this.outstanding -= c.discardPending();
  }

  /** Stop at once, without waiting for replies: the result is marked incomplete. */
  abort(reason: string, kind: IncompleteReason = 'failed'): void {
    if (this.phase === PHASE_DONE) return;
    if (this.error === null) {
      this.error = reason;
      this.errorKind = kind;
    }
    this.finish();
  }

  /** The reply deadline: a socket with requests outstanding and no reply for that long ends the cell. */
  private checkReplies = (): void => {
    const now = performance.now();
    for (const c of this.conns) {
      const wait = c.longestWait();
      if (wait === null || now - wait.sinceMs < this.replyTimeoutMs) continue;
      const gapMs = now - wait.sinceMs;
      // The worker's count: requests in flight on every connection, and (cluster) waiting in pools.
      const n = Math.max(this.outstanding, wait.outstanding);
      this.timedOut = { gapMs, endMs: now };
      this.abort(
        `the server at ${wait.server} stopped answering: no reply for ${(gapMs / 1000).toFixed(1)} s with ${n} request${n === 1 ? '' : 's'} outstanding; the deadline is ${this.replyTimeoutMs / 1000} s (--timeout). Check that the server is running and not paused (SIGSTOP, a debugger), blocked (a long KEYS, DEBUG SLEEP, a fork of a large dataset) or swapping, then run again; raise --timeout if such pauses are expected`,
        'reply-timeout',
      );
      return;
    }
  };

  onReplies(conn: MeasuredConnection, count: number, now: number): void {
    // Replies arrived while polling: that turn of the loop was work, not waiting.
    this.spinSinceMs = null;
    this.outstanding -= count;
    if (this.phase === PHASE_RUNNING) {
      if (this.openLoop) this.sendDue(conn, now);
      else this.fill(conn);
    }
    if (this.outstanding === 0) this.checkDone();
  }

  onConnectionLost(_conn: MeasuredConnection, err: Error): void {
    // The server sent what no server may: the message names it and the limit.
    if (err instanceof ReplyLimitError) {
      this.abort(err.message, 'failed');
      return;
    }
    const code = (err as NodeJS.ErrnoException).code;
    this.abort(
      `lost a connection to the server mid-run (${code ? `${code}: ` : ''}${err.message})`,
      'connection-lost',
    );
  }

  /** Closed loop: the connection sends what its pipelines have room for, taking on at most the measured budget. */
  private fill(conn: MeasuredConnection): void {
    const n = conn.fill(this.measuring ? this.remaining : Number.POSITIVE_INFINITY);
    if (this.measuring) this.remaining -= n;
    this.outstanding += n;
  }

  private sendDue(conn: MeasuredConnection, now: number): void {
    const n = conn.sendDue(now, this.measuring ? this.remaining : Number.POSITIVE_INFINITY);
    if (this.measuring) this.remaining -= n;
    this.outstanding += n;
  }

  /** Open loop: wake when the earliest connection is due. */
  private tick = (): void => {
    this.timer = null;
    this.immediate = null;
    if (this.phase !== PHASE_RUNNING) return;
    const now = performance.now();
    // Nothing but this poll ran since the last one: the loop only waited (see SPIN_MS).
    const waitedSince = this.spinSinceMs;
    this.spinSinceMs = null;
    const before = this.outstanding;
    let next = Number.POSITIVE_INFINITY;
    for (const c of this.conns) {
      this.sendDue(c, now);
      const wake = c.nextWakeMs();
      if (wake < next) next = wake;
    }
    const sent = this.outstanding !== before;
    const end = performance.now();
    // A poll that sent nothing was all waiting, its own time included.
    if (waitedSince !== null && this.measuring) this.spinIdleMs += (sent ? now : end) - waitedSince;
    if (this.measuring && this.remaining <= 0) {
      this.checkDone();
      return;
    }
    // Every window full: replies wake the connections (onReplies); the timer is only a backstop.
    if (next === Number.POSITIVE_INFINITY) {
      this.timer = setTimeout(this.tick, 1);
      return;
    }
    const delay = next - end;
    if (delay <= SPIN_MS) {
      this.immediate = setImmediate(this.tick);
      this.spinSinceMs = end;
      return;
    }
    this.timer = setTimeout(this.tick, delay - SPIN_MS);
  };

  /**
   * The share of the measured phase the event loop was working: Node's figure, less the polls
   * that only waited for a request's time (the saturation check reads this as the client's load).
   */
  private loopUtilization(): number {
    if (!this.eluStart) return 0;
    const { active, idle } = performance.eventLoopUtilization(this.eluStart);
    const total = active + idle;
    return total > 0 ? Math.max(0, active - this.spinIdleMs) / total : 0;
  }

  private checkDone(): void {
    if (this.phase === PHASE_DONE || this.outstanding > 0) return;
    if (this.phase === PHASE_STOPPING || (this.measuring && this.remaining <= 0)) this.finish();
  }

  private finish(): void {
    if (this.phase === PHASE_DONE) return;
    this.phase = PHASE_DONE;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    if (this.stopTimer) clearTimeout(this.stopTimer);
    if (this.watchdog) clearInterval(this.watchdog);
    const w = this.workload;
    const elu = this.loopUtilization();
    const { errors: totalErrors, bytesIn, bytesOut, completed: totalCompleted, moved, ask } = this.totals();
    let errorExample = '';
    let wrongTypeReplies = 0;
    let firstWrongType = 0;
    let gap = this.timedOut ?? { gapMs: 0, endMs: 0 };
    for (const c of this.conns) {
      const counters = c.counters();
      errorExample ||= counters.errorExample;
      wrongTypeReplies += counters.wrongTypes;
      firstWrongType ||= counters.firstWrongType;
      const g = c.longestGap();
      if (g.gapMs > gap.gapMs) gap = g;
    }
    for (const c of this.conns) c.close();
    const measuredErrors: Record<string, number> = {};
    for (const [k, v] of totalErrors) {
      const d = v - (this.snapshot.errors.get(k) ?? 0);
      if (d > 0) measuredErrors[k] = d;
    }
    this.finished({
      workerIndex: this.plan.workerIndex,
      histogram: encodeHistogram(w.latency.flush()),
      responseHistogram: w.responseTime ? encodeHistogram(w.responseTime.flush()) : null,
      // Null where nothing recorded it (a closed loop).
      sendLatenessHistogram: w.sendLateness?.count ? encodeHistogram(w.sendLateness.flush()) : null,
      measuredCompleted: w.measuredCompleted,
      measuredElapsedMs: this.measuring
        ? Math.max(0, (w.measuredCompleted > 0 ? w.lastReplyMs : performance.now()) - w.measureStartMs)
        : 0,
      totalCompleted,
      measuredErrors,
      totalErrors: Object.fromEntries(totalErrors),
      // Counted per reply (LoadConnection.timeReplies): the warm-up's replies are not among them.
      measuredNils: w.measuredNils,
      measuredBytesIn: bytesIn - this.snapshot.bytesIn,
      measuredBytesOut: bytesOut - this.snapshot.bytesOut,
      measuredRedirects: this.connections.followsRedirects
        ? { moved: moved - this.snapshot.moved, ask: ask - this.snapshot.ask }
        : null,
      totalRedirects: moved + ask,
      eventLoopUtilization: elu,
      errorExample,
      wrongTypeReplies,
      wrongTypeExample: firstWrongType ? String.fromCharCode(firstWrongType) : '',
      stall:
        this.measuring && (gap.gapMs >= STALL_WARN_MS || this.timedOut !== null)
          ? { maxGapMs: gap.gapMs, atSec: Math.max(0, (gap.endMs - gap.gapMs - w.measureStartMs) / 1000) }
          : null,
      incomplete: this.error !== null,
      incompleteReason: this.errorKind,
      error: this.error,
    });
  }
}
