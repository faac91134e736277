import { type KeyGenerator, Rng } from '../keys.js';
import type { RequestTemplate, ValueSource } from '../resp/request-template.js';
import { LatencyRecorder } from './latency-recorder.js';

/**
 * What one worker's connections share: the request templates and the order they are used in,
 * the key and value sources, the recorders and the counters of the measured phase.
 */
export class Workload {
  /** Requests sent at or after this time are measured; +Infinity while warming up. */
  measureStartMs = Number.POSITIVE_INFINITY;
  measuredCompleted = 0;
  /** Null replies (misses) among the measured completions. */
  measuredNils = 0;
  lastReplyMs = 0;
  readonly latency = new LatencyRecorder();
  readonly responseTime: LatencyRecorder | null;
  /**
   * Open loop: how late the client itself sent each measured request, from its intended time or,
   * if the connection's window was full then, from when a reply made room (that wait was the
   * server's). Its timer's granularity and the host's wake-ups, which the response time includes.
   */
  readonly sendLateness: LatencyRecorder | null;
  readonly maxRequestBytes: number;
  /** One command whose requests all have one length: sent from pre-encoded copies. */
  readonly fixed: { bytes: Buffer; keyOffsets: number[] } | null;

  private cyclePos = 0;
  private readonly single: RequestTemplate | null;
  private readonly rng: Rng;

  constructor(
    readonly templates: readonly RequestTemplate[],
    /** Indexes into templates, used in turn: [0] for one test, [0, 1 x10] for SET:GET 1:10. */
    private readonly cycle: Uint8Array,
    readonly keys: KeyGenerator,
    readonly values: ValueSource,
    readonly rate: { perConnectionOpsPerSec: number; poisson: boolean; seed: number } | null,
    /** The type bytes a reply to these templates may have (cellReplyTypes); null: not checked. */
    readonly replyTypes: string | null = null,
  ) {
    this.single = cycle.length === 1 ? templates[cycle[0]!]! : null;
    this.maxRequestBytes = Math.max(...templates.map((t) => t.maxBytes));
    this.fixed = this.single ? this.single.fixedLayout(values) : null;
    this.responseTime = rate ? new LatencyRecorder() : null;
    this.sendLateness = rate ? new LatencyRecorder() : null;
    this.rng = new Rng(rate ? rate.seed : 1);
  }

  nextTemplate(): RequestTemplate {
    if (this.single !== null) return this.single;
    const t = this.templates[this.cycle[this.cyclePos]!]!;
    this.cyclePos = this.cyclePos + 1 === this.cycle.length ? 0 : this.cyclePos + 1;
    return t;
  }

  /** The index of the next request's template: cluster mode routes by the test before encoding. */
  nextTemplateIndex(): number {
    const i = this.cycle[this.cyclePos]!;
    if (this.cycle.length > 1)
      this.cyclePos = this.cyclePos + 1 === this.cycle.length ? 0 : this.cyclePos + 1;
    return i;
  }

  /** Open loop: the gap before a connection's next request, constant or exponential (Poisson arrivals). */
  nextIntervalMs(): number {
    const mean = 1000 / this.rate!.perConnectionOpsPerSec;
    return this.rate!.poisson ? -Math.log(1 - this.rng.next()) * mean : mean;
  }
}
