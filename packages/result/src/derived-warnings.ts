import { cpuSet } from './fingerprint.js';
import type { ResultV1, Warning } from './generated/result-v1.js';

/**
 * IO_THREADS_OVER_CPUS: a server whose io-threads (the main thread counts as one) exceed the CPUs
 * it could run on. Redis's and Valkey's I/O threads busy-wait for their next batch; on too few
 * CPUs each waits out the others' time slices, and throughput falls by an order of magnitude (one
 * CPU, io-threads 2: a median 18x slower for Redis, 53x for Valkey 8.0.1; data/README.md). The
 * figure is true for that setup, so it is kept, but a reader must not take it for what io-threads
 * does on a machine with the cores for it. `serverCpus` is the server's CPU affinity as a kernel
 * CPU list ("1", "0-3"); null when unknown (a remote server), and then nothing is said.
 */
export function ioThreadsOverCpus(ioThreads: number | null, serverCpus: string | null): Warning | null {
  if (ioThreads === null || ioThreads <= 1) return null;
  const cpus = cpuSet(serverCpus)?.size ?? 0;
  if (cpus === 0 || ioThreads <= cpus) return null;
  const on = cpus === 1 ? `one CPU (${serverCpus})` : `${cpus} CPUs (${serverCpus})`;
  return {
    code: 'IO_THREADS_OVER_CPUS',
    message: `io-threads ${ioThreads} on a server that could run on ${on}: its threads wait for each other's time slices, so these figures measure that contention, not what io-threads gives a machine with the cores for it. Give the server at least ${ioThreads} CPUs (with --server-cpus when the runner launches it), or measure io-threads ${cpus}.`,
    cell: null,
  };
}

/** Said of a warning the runner did not record but its result's own facts imply. */
export const DERIVED_NOTE =
  ' (Derived from this result’s environment when it was stored: the runner that made it did not check this.)';

/**
 * Warnings a result's own recorded facts imply but its runner did not write, because it predates
 * the check. The signed document is never changed: these are added beside its warnings wherever
 * warnings are read (the database rows, the site's pages), each marked as derived.
 */
export function derivedWarnings(r: Pick<ResultV1, 'environment' | 'warnings'>): Warning[] {
  const has = new Set(r.warnings.map((w) => w.code));
  const out: Warning[] = [];
  const io = ioThreadsOverCpus(
    r.environment.server?.ioThreads ?? null,
    r.environment.client.numa?.serverCpus ?? null,
  );
  if (io && !has.has(io.code)) out.push({ ...io, message: io.message + DERIVED_NOTE });
  return out;
}

/** A result's warnings as recorded, then the derived ones. */
export function warningsOf(r: Pick<ResultV1, 'environment' | 'warnings'>): Warning[] {
  return [...r.warnings, ...derivedWarnings(r)];
}
