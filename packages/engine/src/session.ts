import { randomBytes } from 'node:crypto';
import type { CrossCheck, ErrorReplies, IncompleteReason, SloSearch, Stall } from '@redis-benchdb/result';
import {
  encodeHistogram,
  type LatencySummaryUs,
  mergeEncodedHistograms,
  summarizeHistogram,
} from '@redis-benchdb/result';
import { ClusterControl } from './cluster/control.js';
import { ClusterModeError, validateClusterTest } from './cluster/routing.js';
import { customTest, findTests, type TestDefinition } from './commands.js';
import { ControlPlane } from './control.js';
import { crossCheck } from './cross-check.js';
import type { WorkerReport } from './load/plan.js';
import {
  type CellOptions,
  clusterTargetRefusal,
  type Target,
  validateCellOptions,
  valueRange,
} from './options.js';
import type { KeyStore } from './prefix-keys.js';
import { ReplyLimitError } from './resp/reply-limits.js';
import { markRun, removeRun } from './run-marker.js';
import { runWorkers } from './run-workers.js';
import { type Saturation, summarizeSaturation } from './saturation.js';

/**
 * The figures of a cell's measured phase: one trial's (CellResult), or the trials' merged (trials.ts
 * CellSummary, whose doc says how each is merged).
 */
export interface CellFigures {
  requested: number | null;
  completed: number;
  bytesIn: number;
  bytesOut: number;
  errors: Record<string, number>;
  /** hits/(hits+misses) for reads, from the null replies. */
  hitRatio: number | null;
  latencyUs: LatencySummaryUs;
  histogram: string;
  /** Open loop: from the intended send time (corrected for coordinated omission). */
  responseTimeUs: LatencySummaryUs | null;
  responseHistogram: string | null;
  saturation: Saturation;
  crossCheck: CrossCheck;
  /** Cluster mode: MOVED and ASK replies followed in the measured phase; null otherwise. */
  redirects: { moved: number; ask: number } | null;
  /** Error replies in the measured phase, when any came (they are among `completed`). */
  errorReplies: ErrorReplies | null;
  /** The longest wait for a reply, when it reached STALL_WARN_MS or the reply deadline. */
  stall: Stall | null;
  /**
   * Replies of a type the command never returns (an integer to GET), warm-up included, and the first
   * one's RESP type byte; null when there were none, or the command's types are unknown (custom).
   */
  wrongReplies: WrongReplies | null;
  incomplete: boolean;
  incompleteReason: IncompleteReason | null;
  error: string | null;
}

/** One trial of a cell, as run. */
export interface CellResult extends CellFigures {
  test: string;
  /** The cell's options in full, as run. */
  workload: CellOptions;
  durationSec: number;
  opsPerSec: number;
  /** Null replies in the measured phase (hitRatio comes from them). */
  nils: number;
  /** Open loop: how late the client itself sent requests (Workload.sendLateness); null if unrecorded. */
  sendLatenessUs: LatencySummaryUs | null;
  /** A search for the rate at latency objectives (slo/search.ts): this trial is its answer's step. */
  sloSearch?: SloSearch;
}

export interface WrongReplies {
  count: number;
  /** The first one's RESP type byte, e.g. ':' for an integer. */
  type: string;
}

/** The commandstats cross-check of a cell; the shape is the result schema's (schemas/result.v1). */
export type { CrossCheck, ErrorReplies, Stall };

export interface RunCellHooks {
  onProgress?: (completed: number, requested: number | null, elapsedSec: number) => void;
  signal?: AbortSignal;
  /** The measured phase (not warm-up, not preload) starts and ends: e.g. to sample interference. */
  onMeasureStart?: () => void;
  onMeasureEnd?: () => void;
}

export const READ_TESTS = new Set(['GET']);

/** A test that may change the `key:{key}` space a GET preload writes: any on it but GET. */
const writesKeySpace = (t: TestDefinition): boolean =>
  !READ_TESTS.has(t.name) && t.parts.some((p) => p.kind === 'key' && p.text === 'key:');

/** A benchmark session against one server: its key prefix, its control connection, its cells. */
export class BenchSession {
  private constructor(
    readonly target: Target,
    private controlPlane: ControlPlane,
    /** Every key this session writes starts with this, e.g. `rbdb:3f9c1a:`. */
    readonly prefix: string,
    /** Cluster mode (target.cluster): the primaries' control connections and the topology. */
    readonly cluster: ClusterControl | null = null,
  ) {}

  private stopHeartbeat: (() => void) | null = null;

  /** The control connection (ioredis): INFO, commandstats, preloads, cleanup. */
  get control(): ControlPlane {
    return this.controlPlane;
  }

  /** Key spaces already written by a preload, as `size:valueMin-valueMax`. */
  private readonly preloaded = new Set<string>();
  /**
   * What the preloads for read cells cost so far: the keys written and the seconds spent, unmeasured.
   * A short run of the suite spends most of its time here (a million keys, more than once), and the
   * runner says so rather than leave its length a mystery.
   */
  readonly preloadCost = { keys: 0, seconds: 0 };

  static async open(target: Target): Promise<BenchSession> {
    const refusal = target.cluster ? clusterTargetRefusal(target) : null;
    if (refusal) throw new ClusterModeError(refusal);
    const control = await ControlPlane.connect(target);
    let cluster: ClusterControl | null = null;
    try {
      if (target.cluster) cluster = await ClusterControl.open(target, control);
    } catch (err) {
      await control.close();
      throw err;
    }
    return new BenchSession(target, control, `rbdb:${randomBytes(3).toString('hex')}:`, cluster);
  }

  /** What commandstats and CPU are read from: the server, or every primary of the cluster. */
  private get meter(): ControlPlane | ClusterControl {
    return this.cluster ?? this.control;
  }

  async runCell(options: CellOptions, hooks: RunCellHooks = {}): Promise<CellResult> {
    validateCellOptions(options);
    const tests = cellTests(options);
    if (this.cluster) {
      for (const t of tests.list) validateClusterTest(t, options.keyspaceSize);
      await this.cluster.refresh();
    }
    const [vmin, vmax] = valueRange(options.valueSizeBytes);
    await this.prepare(options, tests.list, hooks.signal);
    // A cell writing the GET key space leaves other values than a preload wrote: a later GET must
    // preload again (a GET P10 16B repeated after SET P10 128B read 128-byte values: a false DRIFT).
    if (tests.list.some(writesKeySpace)) this.preloaded.clear();
    const statNames = [...new Set(tests.list.map((t) => t.commandstat))];
    const statsBefore = await this.meter.commandStats();
    const run = await runWorkers(
      this.target,
      options,
      {
        prefix: this.prefix,
        tests: tests.list,
        cycle: tests.cycle,
        valueMin: vmin,
        valueMax: vmax,
        ...(this.cluster ? { cluster: this.cluster.plan() } : {}),
      },
      { control: this.meter, ...hooks },
    );
    const statsAfter = await this.meter.commandStats().catch(() => null);
    return buildResult(options, tests.list, run.reports, run.cpu, statNames, statsBefore, statsAfter);
  }

  /**
   * Mark the prefix as this run's (run-marker.ts), so that `cleanup` can find what a killed run
   * left; renewed until cleanup. `runner` names the program, e.g. `redis-benchdb 0.2.0`.
   */
  async markStart(runner: string): Promise<void> {
    this.stopHeartbeat?.();
    this.stopHeartbeat = await markRun(this.keyStore, this.prefix, runner);
  }

  /** Remove every key this session wrote; returns how many (the run's marker not counted). */
  async cleanup(): Promise<number> {
    return (await this.removeKeys()).removed;
  }

  /** cleanup() that stops between SCAN batches when `signal` aborts; the marker then stays. */
  async removeKeys(signal?: AbortSignal): Promise<{ removed: number; stopped: boolean }> {
    this.preloaded.clear();
    this.stopHeartbeat?.();
    this.stopHeartbeat = null;
    await this.reconnectIfRefused();
    return removeRun(this.keyStore, this.prefix, signal);
  }

  /**
   * A control connection cut for a reply past the limits (ControlRedis) is opened again, under the
   * same limits, to remove the run's keys; one cut for silence (--timeout) is not: waiting again would only end the run later.
   */
  private async reconnectIfRefused(): Promise<void> {
    const cut = this.controlPlane.redis.cutReason;
    if (this.cluster || cut === null || !(cut instanceof ReplyLimitError)) return;
    await this.controlPlane.close();
    this.controlPlane = await ControlPlane.connect(this.target);
  }

  /** Where this session's keys live: the server, or every primary. */
  get keyStore(): KeyStore {
    return this.cluster ?? this.control;
  }

  async close(): Promise<void> {
    this.stopHeartbeat?.();
    await this.cluster?.close();
    await this.controlPlane.close();
  }

  /** Lists for LRANGE, keys for reads: state the measured commands expect, written unmeasured. */
  private async prepare(options: CellOptions, tests: TestDefinition[], signal?: AbortSignal): Promise<void> {
    const [vmin] = valueRange(options.valueSizeBytes);
    if (tests.some((t) => t.needsList)) {
      const key = `${this.prefix}mylist`;
      const redis = this.cluster ? this.cluster.forKey(key).redis : this.control.redis;
      await redis.del(key);
      const value = 'x'.repeat(vmin);
      for (let i = 0; i < 600; i += 100) await redis.rpush(key, ...Array.from({ length: 100 }, () => value));
    }
    const [, vmax] = valueRange(options.valueSizeBytes);
    const preloadKey = `${options.keyspaceSize}:${vmin}-${vmax}`;
    if (options.preload && tests.some((t) => READ_TESTS.has(t.name)) && !this.preloaded.has(preloadKey)) {
      const set = findTests(['set']);
      const started = performance.now();
      await runWorkers(
        this.target,
        {
          ...options,
          test: 'SET',
          keyPattern: 'sequential',
          requests: options.keyspaceSize,
          durationSec: undefined,
          warmupSec: 0,
          rateOpsPerSec: undefined,
          pipelineMode: 'window',
          pipelineDepth: 32,
          connections: Math.min(options.connections, 16),
          threads: 1,
        },
        {
          prefix: this.prefix,
          tests: set,
          cycle: [0],
          valueMin: vmin,
          valueMax: vmax,
          ...(this.cluster ? { cluster: this.cluster.plan() } : {}),
        },
        { control: this.meter, ...(signal ? { signal } : {}) },
      );
      this.preloadCost.keys += options.keyspaceSize;
      this.preloadCost.seconds += (performance.now() - started) / 1000;
      if (!signal?.aborted) this.preloaded.add(preloadKey);
    }
  }
}

/** Refuse, before any load, a cell that cluster mode cannot run (ClusterModeError says why). */
export function validateClusterCell(o: CellOptions): void {
  for (const t of cellTests(o).list) validateClusterTest(t, o.keyspaceSize);
}

/** The tests a cell sends, and the order it cycles through them. */
export function cellTests(o: CellOptions): { list: TestDefinition[]; cycle: number[] } {
  if (o.setGetRatio) {
    const [s, g] = o.setGetRatio;
    return {
      list: findTests(['set', 'get']),
      cycle: [...Array(s).fill(0), ...Array(g).fill(1)],
    };
  }
  if (o.test.toUpperCase() === 'CUSTOM') return { list: [customTest(o.command ?? [])], cycle: [0] };
  return { list: findTests([o.test]).slice(0, 1), cycle: [0] };
}

function buildResult(
  options: CellOptions,
  tests: TestDefinition[],
  reports: WorkerReport[],
  cpu: { wallSec: number; totalSec: number | null; mainThreadSec: number | null },
  statNames: string[],
  before: Map<string, { calls: number; rejectedCalls: number }>,
  after: Map<string, { calls: number; rejectedCalls: number }> | null,
): CellResult {
  const sum = (f: (r: WorkerReport) => number) => reports.reduce((a, r) => a + f(r), 0);
  const completed = sum((r) => r.measuredCompleted);
  const elapsedSec = Math.max(...reports.map((r) => r.measuredElapsedMs)) / 1000;
  const errors: Record<string, number> = {};
  for (const r of reports)
    for (const [k, v] of Object.entries(r.measuredErrors)) errors[k] = (errors[k] ?? 0) + v;
  const hist = mergeEncodedHistograms(reports.map((r) => r.histogram));
  const response = reports[0]?.responseHistogram
    ? mergeEncodedHistograms(reports.map((r) => r.responseHistogram!))
    : null;
  const lateReports = reports.filter((r) => r.sendLatenessHistogram !== null);
  const late = lateReports.length
    ? mergeEncodedHistograms(lateReports.map((r) => r.sendLatenessHistogram!))
    : null;
  const nils = sum((r) => r.measuredNils);
  const opsPerSec = elapsedSec > 0 ? completed / elapsedSec : 0;
  // A redirected request was counted by the server twice: rejected where it went first, and a
  // call where it was answered. The client counts it once, plus once per redirect it followed.
  const expected = sum((r) => r.totalCompleted + r.totalRedirects);
  const redirects = reports[0]?.measuredRedirects
    ? {
        moved: sum((r) => r.measuredRedirects?.moved ?? 0),
        ask: sum((r) => r.measuredRedirects?.ask ?? 0),
      }
    : null;
  const failed = reports.find((r) => r.error);
  const error = failed?.error ?? null;
  const errorCount = Object.values(errors).reduce((a, v) => a + v, 0);
  const stalls = reports.flatMap((r) => (r.stall ? [r.stall] : []));
  const stall = stalls.length ? stalls.reduce((a, b) => (b.maxGapMs > a.maxGapMs ? b : a)) : null;
  const isRead = tests.length === 1 && READ_TESTS.has(tests[0]!.name);
  const wrongTypeReplies = sum((r) => r.wrongTypeReplies);
  return {
    test: options.setGetRatio ? `SET:GET ${options.setGetRatio.join(':')}` : tests[0]!.name,
    workload: options,
    requested: options.requests ?? null,
    completed,
    durationSec: round(elapsedSec, 6),
    opsPerSec: round(opsPerSec, 2),
    bytesIn: sum((r) => r.measuredBytesIn),
    bytesOut: sum((r) => r.measuredBytesOut),
    errors,
    nils,
    hitRatio: isRead && completed > 0 ? round((completed - nils) / completed, 6) : null,
    latencyUs: summarizeHistogram(hist),
    histogram: encodeHistogram(hist),
    responseTimeUs: response ? summarizeHistogram(response) : null,
    responseHistogram: response ? encodeHistogram(response) : null,
    sendLatenessUs: late ? summarizeHistogram(late) : null,
    saturation: summarizeSaturation(reports, cpu, options.rateOpsPerSec ?? null, opsPerSec),
    crossCheck: reports.some((r) => r.incomplete)
      ? {
          status: 'unavailable',
          expected,
          observed: null,
          commands: statNames,
          note: 'the cell was cut short: requests in flight were counted by the server but not by the client',
        }
      : crossCheck(statNames, expected, before, after),
    redirects,
    errorReplies:
      errorCount > 0
        ? {
            count: errorCount,
            ratio: round(errorCount / Math.max(completed, errorCount), 6),
            successOpsPerSec: round(elapsedSec > 0 ? (completed - errorCount) / elapsedSec : 0, 2),
            example: cleanErrorText(reports.find((r) => r.errorExample)?.errorExample ?? ''),
          }
        : null,
    stall: stall ? { maxGapMs: round(stall.maxGapMs, 3), atSec: round(stall.atSec, 3) } : null,
    wrongReplies:
      wrongTypeReplies > 0
        ? { count: wrongTypeReplies, type: reports.find((r) => r.wrongTypeExample)?.wrongTypeExample ?? '?' }
        : null,
    incomplete: reports.some((r) => r.incomplete),
    incompleteReason: failed?.incompleteReason ?? null,
    error,
  };
}

/** A server's error text as an example to keep: printable ASCII, one line, at most 200 characters. */
export function cleanErrorText(s: string): string {
  const clean = s.replace(/[^\x20-\x7e]+/g, ' ').trim();
  return clean.length > 200 ? `${clean.slice(0, 197)}...` : clean || '(no message)';
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
