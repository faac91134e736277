import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type PreparedGroup, type PreparedResult, prepareGroup, prepareResult } from './prepare.js';
import { stagedSvgs } from './stage.js';

/**
 * Result pages ask for their prepared data here. In a build, the integration bundles a worker
 * (src/workers/prepare-worker.ts) and names it in this variable: the work then spreads over the
 * machine's cores while Astro renders pages concurrently (build.concurrency). Without it (astro dev,
 * a unit test), the work runs inline.
 */
export const WORKER_ENV = 'REDIS_BENCHDB_SITE_WORKER';

/** What a worker is asked: one result page's work, or one run group page's. */
export type Task = { kind: 'result'; id: string } | { kind: 'group'; id: string; ids: string[] };
type Prepared = PreparedResult | PreparedGroup;

interface Job {
  task: Task;
  resolve: (p: Prepared) => void;
  reject: (e: Error) => void;
}

export function runTask(task: Task): Prepared {
  return task.kind === 'result' ? prepareResult(task.id) : prepareGroup(task.id, task.ids);
}

let pool: { idle: Worker[]; queue: Job[]; busy: Map<Worker, Job> } | null = null;

export function preparedResult(id: string): Promise<PreparedResult> {
  return submit({ kind: 'result', id }) as Promise<PreparedResult>;
}

export function preparedGroup(id: string, ids: string[]): Promise<PreparedGroup> {
  return submit({ kind: 'group', id, ids }) as Promise<PreparedGroup>;
}

function submit(task: Task): Promise<Prepared> {
  const file = process.env[WORKER_ENV];
  if (!file) return Promise.resolve(runTask(task));
  pool ??= startPool(file);
  return new Promise((resolve, reject) => {
    pool!.queue.push({ task, resolve, reject });
    dispatch();
  });
}

function startPool(file: string): NonNullable<typeof pool> {
  const p = { idle: [] as Worker[], queue: [] as Job[], busy: new Map<Worker, Job>() };
  const n = Math.max(1, Math.min(availableParallelism(), 4));
  for (let i = 0; i < n; i++) {
    // A young generation of 192 MB, four times Node 20's default (three 16 MB semi-spaces): each page's
    // charts and views are short-lived, and with the default the workers spent 9% of their samples
    // collecting them (measured at 10,000 results: pages 164 s, then 151 s with this and the main
    // thread's --max-semi-space-size, scripts/site-build.mjs).
    const w = new Worker(file, { env: process.env, resourceLimits: { maxYoungGenerationSizeMb: 192 } });
    // The build's process must be free to exit when the pages are done.
    w.unref();
    w.on('message', (msg: { ok: true; prepared: Prepared } | { ok: false; error: string }) => {
      const job = p.busy.get(w)!;
      p.busy.delete(w);
      p.idle.push(w);
      if (msg.ok) {
        stagedSvgs().push(...msg.prepared.svgs);
        job.resolve(msg.prepared);
      } else job.reject(new Error(msg.error));
      dispatch();
    });
    w.on('error', (e) => {
      const job = p.busy.get(w);
      p.busy.delete(w);
      job?.reject(e);
    });
    p.idle.push(w);
  }
  return p;
}

function dispatch(): void {
  const p = pool!;
  while (p.idle.length && p.queue.length) {
    const w = p.idle.pop()!;
    const job = p.queue.shift()!;
    p.busy.set(w, job);
    w.postMessage(job.task);
  }
}
