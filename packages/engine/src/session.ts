import { randomBytes } from 'node:crypto';
import type { CrossCheck } from '@redis-benchdb/result';
import {
  encodeHistogram,
  type LatencySummaryUs,
  mergeEncodedHistograms,
  summarizeHistogram,
} from '@redis-benchdb/result';
import { customTest, findTests, type TestDefinition } from './commands.js';
import { ControlPlane } from './control.js';
import type { WorkerReport } from './load/plan.js';
import { type CellOptions, type Target, validateCellOptions, valueRange } from './options.js';
import { runWorkers } from './run-workers.js';
import { type Saturation, summarizeSaturation } from './saturation.js';

export interface CellResult {
  test: string;
  /** The cell's options in full, as run. */
  workload: CellOptions;
  requested: number | null;
  completed: number;
  durationSec: number;
  opsPerSec: number;
  bytesIn: number;
  bytesOut: number;
  errors: Record<string, number>;
  /** Null replies in the measured phase, and hits/(hits+misses) for reads. */
  nils: number;
  hitRatio: number | null;
  latencyUs: LatencySummaryUs;
  histogram: string;
  /** Open loop: from the intended send time (corrected for coordinated omission). */
  responseTimeUs: LatencySummaryUs | null;
  responseHistogram: string | null;
  saturation: Saturation;
  crossCheck: CrossCheck;
  incomplete: boolean;
  error: string | null;
}

/** The commandstats cross-check of a cell; the shape is the result schema's (schemas/result.v1). */
export type { CrossCheck };

export interface RunCellHooks {
  onProgress?: (completed: number, requested: number | null, elapsedSec: number) => void;
  signal?: AbortSignal;
}

const READ_TESTS = new Set(['GET']);

/** A benchmark session against one server: its key prefix, its control connection, its cells. */
export class BenchSession {
  private constructor(
    readonly target: Target,
    readonly control: ControlPlane,
    /** Every key this session writes starts with this, e.g. `rbdb:3f9c1a:`. */
    readonly prefix: string,
  ) {}

  /** Key spaces already written by a preload, as `size:valueMin-valueMax`. */
  private readonly preloaded = new Set<string>();

  static async open(target: Target): Promise<BenchSession> {
    const control = await ControlPlane.connect(target);
    return new BenchSession(target, control, `rbdb:${randomBytes(3).toString('hex')}:`);
  }

  async runCell(options: CellOptions, hooks: RunCellHooks = {}): Promise<CellResult> {
    validateCellOptions(options);
    const tests = cellTests(options);
    const [vmin, vmax] = valueRange(options.valueSizeBytes);
    await this.prepare(options, tests.list, hooks.signal);
    const statNames = [...new Set(tests.list.map((t) => t.commandstat))];
    const statsBefore = await this.control.commandStats();
    const run = await runWorkers(
      this.target,
      options,
      {
        prefix: this.prefix,
        tests: tests.list,
        cycle: tests.cycle,
        valueMin: vmin,
        valueMax: vmax,
      },
      { control: this.control, ...hooks },
    );
    const statsAfter = await this.control.commandStats().catch(() => null);
    return buildResult(options, tests.list, run.reports, run.cpu, statNames, statsBefore, statsAfter);
  }

  /** Remove every key this session wrote. */
  cleanup(): Promise<number> {
    this.preloaded.clear();
    return this.control.removeKeys(this.prefix);
  }

  close(): Promise<void> {
    return this.control.close();
  }

  /** Lists for LRANGE, keys for reads: state the measured commands expect, written unmeasured. */
  private async prepare(options: CellOptions, tests: TestDefinition[], signal?: AbortSignal): Promise<void> {
    const redis = this.control.redis;
    const [vmin] = valueRange(options.valueSizeBytes);
    if (tests.some((t) => t.needsList)) {
      const key = `${this.prefix}mylist`;
      await redis.del(key);
      const value = 'x'.repeat(vmin);
      for (let i = 0; i < 600; i += 100) await redis.rpush(key, ...Array.from({ length: 100 }, () => value));
    }
    const [, vmax] = valueRange(options.valueSizeBytes);
    const preloadKey = `${options.keyspaceSize}:${vmin}-${vmax}`;
    if (options.preload && tests.some((t) => READ_TESTS.has(t.name)) && !this.preloaded.has(preloadKey)) {
      const set = findTests(['set']);
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
        { prefix: this.prefix, tests: set, cycle: [0], valueMin: vmin, valueMax: vmax },
        { control: this.control, ...(signal ? { signal } : {}) },
      );
      if (!signal?.aborted) this.preloaded.add(preloadKey);
    }
  }
}

function cellTests(o: CellOptions): { list: TestDefinition[]; cycle: number[] } {
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
  const nils = sum((r) => r.measuredNils);
  const opsPerSec = elapsedSec > 0 ? completed / elapsedSec : 0;
  const expected = sum((r) => r.totalCompleted);
  const error = reports.find((r) => r.error)?.error ?? null;
  const isRead = tests.length === 1 && READ_TESTS.has(tests[0]!.name);
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
    incomplete: reports.some((r) => r.incomplete),
    error,
  };
}

function crossCheck(
  names: string[],
  expected: number,
  before: Map<string, { calls: number; rejectedCalls: number }>,
  after: Map<string, { calls: number; rejectedCalls: number }> | null,
): CrossCheck {
  if (!after)
    return {
      status: 'unavailable',
      expected,
      observed: null,
      commands: names,
      note: 'INFO commandstats could not be read after the cell',
    };
  let observed = 0;
  for (const n of names) {
    const a = after.get(n);
    if (!a)
      return {
        status: 'unavailable',
        expected,
        observed: null,
        commands: names,
        note: `the server keeps no commandstats for "${n}" (unknown command?)`,
      };
    const b = before.get(n) ?? { calls: 0, rejectedCalls: 0 };
    observed += a.calls + a.rejectedCalls - b.calls - b.rejectedCalls;
  }
  if (observed === expected) return { status: 'match', expected, observed, commands: names };
  return {
    status: 'mismatch',
    expected,
    observed,
    commands: names,
    note:
      observed > expected
        ? 'other clients ran the same commands during the cell'
        : 'the server counted fewer calls than replies received',
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
