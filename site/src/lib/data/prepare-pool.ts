import { availableParallelism } from 'node:os';
import Tinypool from 'tinypool';
import { stagedSvgs } from '../build/stage.js';
import { type PreparedGroup, type PreparedResult, prepareGroup, prepareResult } from './prepare.js';

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

export function runTask(task: Task): Prepared {
  return task.kind === 'result' ? prepareResult(task.id) : prepareGroup(task.id, task.ids);
}

let pool: Tinypool | null = null;

export function preparedResult(id: string): Promise<PreparedResult> {
  return submit({ kind: 'result', id }) as Promise<PreparedResult>;
}

export function preparedGroup(id: string, ids: string[]): Promise<PreparedGroup> {
  return submit({ kind: 'group', id, ids }) as Promise<PreparedGroup>;
}

async function submit(task: Task): Promise<Prepared> {
  const file = process.env[WORKER_ENV];
  if (!file) return runTask(task);
  const threads = Math.max(1, Math.min(availableParallelism(), 4));
  // Every thread kept for the whole build: each one opens the database and warms its caches once.
  pool ??= new Tinypool({
    filename: file,
    minThreads: threads,
    maxThreads: threads,
    // A young generation of 192 MB, four times Node 20's default (three 16 MB semi-spaces): each page's
    // charts and views are short-lived, and with the default the workers spent 9% of their samples
    // collecting them (measured at 10,000 results: pages 164 s, then 151 s with this and the main
    // thread's --max-semi-space-size, scripts/site-build.mjs).
    resourceLimits: { maxYoungGenerationSizeMb: 192 },
  });
  // tinypool leaves an idle thread unreferenced: the build's process is free to exit when the pages are done.
  const prepared = (await pool.run(task)) as Prepared;
  stagedSvgs().push(...prepared.svgs);
  return prepared;
}
