import { Worker } from 'node:worker_threads';
import type { ClusterPlan } from './cluster/control.js';
import type { TestDefinition } from './commands.js';
import type { ControlMessage, LoadPlan, WorkerMessage, WorkerReport } from './load/plan.js';
import type { CellOptions, Target } from './options.js';

export interface CellPlanParts {
  prefix: string;
  tests: TestDefinition[];
  cycle: number[];
  valueMin: number;
  valueMax: number;
  /** Cluster mode: where each slot's requests go. */
  cluster?: ClusterPlan;
}

/** Everything a worker thread needs to drive its share of a cell. Plain data: it crosses threads. */
export interface WorkerPlan extends LoadPlan {
  /** Cluster mode: the primaries and their slots, as read before the cell. */
  cluster?: ClusterPlan;
}

/** Server CPU seconds; in cluster mode also each primary's, so a cell's saturation is its busiest node's. */
export type CpuSample = {
  total: number;
  mainThread: number | null;
  nodes?: { total: number; mainThread: number | null }[];
};

export interface WorkersRun {
  reports: WorkerReport[];
  /** Server CPU over the measured phase, from INFO cpu. */
  cpu: { wallSec: number; totalSec: number | null; mainThreadSec: number | null };
}

const WORKER_URL = new URL('./worker.js', import.meta.url);

/**
 * Run one cell on `threads` worker threads: split connections, requests and rate between them,
 * start them together, time the warm-up and the duration here, and collect their reports.
 */
export async function runWorkers(
  target: Target,
  o: CellOptions,
  parts: CellPlanParts,
  hooks: {
    control: { cpuSeconds(): Promise<CpuSample>; nodes(): { expectStall(): void }[] };
    onProgress?: (completed: number, requested: number | null, elapsedSec: number) => void;
    signal?: AbortSignal;
    /** Called as the measured phase starts (after any warm-up) and as its last report arrives. */
    onMeasureStart?: () => void;
    onMeasureEnd?: () => void;
  },
): Promise<WorkersRun> {
  const plans = splitPlans(target, o, parts);
  const workers = plans.map((p) => new Worker(WORKER_URL, { workerData: p }));
  const progress = new Array<number>(plans.length).fill(0);
  const reports: WorkerReport[] = [];
  const post = (m: ControlMessage) => {
    for (const w of workers) w.postMessage(m);
  };
  let cpuStart: CpuSample | null = null;
  let measureStartMs = 0;

  const onAbort = () => post({ type: 'abort' });
  hooks.signal?.addEventListener('abort', onAbort);
  try {
    const ready = plans.map(() => deferred<void>());
    const done = plans.map(() => deferred<WorkerReport>());
    workers.forEach((w, i) => {
      w.on('message', (m: WorkerMessage) => {
        if (m.type === 'ready') ready[i]!.resolve();
        else if (m.type === 'failed') ready[i]!.reject(new HandshakeError(m.message));
        else if (m.type === 'progress') {
          progress[i] = m.measuredCompleted;
          hooks.onProgress?.(
            sumOf(progress),
            o.requests ?? null,
            measureStartMs ? (performance.now() - measureStartMs) / 1000 : 0,
          );
        } else if (m.type === 'done') {
          // An abort that reaches a worker still connecting ends it before it is ready: its
          // 'ready' never comes (the port is closed), so the report stands for it.
          ready[i]!.resolve();
          done[i]!.resolve(m.report);
        }
      });
      w.on('error', (err) => {
        ready[i]!.reject(err);
        done[i]!.reject(err);
      });
      w.on('exit', () => {
        const err = new Error('a load worker exited without a report');
        ready[i]!.reject(err);
        done[i]!.reject(err);
      });
    });
    await Promise.all(ready.map((r) => r.promise));
    // Aborted before the load began (say, Ctrl-C during a preload): stop without sending.
    if (hooks.signal?.aborted) onAbort();

    const beginMeasure = async () => {
      cpuStart = await hooks.control.cpuSeconds().catch(() => null);
      measureStartMs = performance.now();
      hooks.onMeasureStart?.();
    };
    const durationMs = o.durationSec !== undefined && o.requests === undefined ? o.durationSec * 1000 : null;
    if (o.warmupSec > 0) {
      post({ type: 'start', measure: false, durationMs: null });
      await sleep(o.warmupSec * 1000);
      await beginMeasure();
      post({ type: 'measure', durationMs });
    } else {
      await beginMeasure();
      post({ type: 'start', measure: true, durationMs });
    }
    for (const d of done) reports.push(await d.promise);
    // The server was silent for the whole --timeout: the control commands that follow (CPU,
    // commandstats, cleanup) must not each wait that long again (ControlRedis.expectStall).
    if (reports.some((r) => r.incompleteReason === 'reply-timeout'))
      for (const n of hooks.control.nodes()) n.expectStall();
    hooks.onMeasureEnd?.();
  } finally {
    hooks.signal?.removeEventListener('abort', onAbort);
    await Promise.all(workers.map((w) => w.terminate()));
  }
  const wallSec = (performance.now() - measureStartMs) / 1000;
  const cpuEnd = await hooks.control.cpuSeconds().catch(() => null);
  const start = busiest(cpuStart as CpuSample | null, cpuEnd);
  const end = start === null ? cpuEnd : cpuEnd!.nodes![start.index]!;
  const from = start === null ? (cpuStart as CpuSample | null) : start.sample;
  return {
    reports,
    cpu: {
      wallSec,
      totalSec: from && end ? end.total - from.total : null,
      mainThreadSec:
        from?.mainThread != null && end?.mainThread != null ? end.mainThread - from.mainThread : null,
    },
  };
}

/** Cluster mode: the primary whose (main-thread) CPU grew most, and its first sample; else null. */
function busiest(
  start: CpuSample | null,
  end: CpuSample | null,
): { index: number; sample: { total: number; mainThread: number | null } } | null {
  if (!start?.nodes || !end?.nodes || start.nodes.length !== end.nodes.length) return null;
  let best = -1;
  let bestDelta = Number.NEGATIVE_INFINITY;
  start.nodes.forEach((s, i) => {
    const e = end.nodes![i]!;
    const d =
      s.mainThread !== null && e.mainThread !== null ? e.mainThread - s.mainThread : e.total - s.total;
    if (d > bestDelta) {
      bestDelta = d;
      best = i;
    }
  });
  return best < 0 ? null : { index: best, sample: start.nodes[best]! };
}

export class HandshakeError extends Error {
  readonly code = 'ERR_HANDSHAKE';
}

/** Connections, requests and rate are split as evenly as whole numbers allow. */
export function splitPlans(target: Target, o: CellOptions, parts: CellPlanParts): WorkerPlan[] {
  const share = (total: number, i: number) => Math.floor(total / o.threads) + (i < total % o.threads ? 1 : 0);
  return Array.from({ length: o.threads }, (_, i) => {
    const connections = share(o.connections, i);
    return {
      workerIndex: i,
      workers: o.threads,
      target,
      ...parts,
      connections,
      pipelineDepth: o.pipelineDepth,
      pipelineMode: o.pipelineMode,
      keyspaceSize: o.keyspaceSize,
      keyPattern: o.keyPattern,
      zipfExponent: o.zipfExponent,
      seed: o.seed,
      requests: o.requests === undefined ? null : share(o.requests, i),
      rateOpsPerSec: o.rateOpsPerSec === undefined ? null : (o.rateOpsPerSec * connections) / o.connections,
      poisson: o.arrival === 'poisson',
    };
  });
}

function sumOf(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}
