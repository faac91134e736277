import { parseCpuList } from '@redis-benchdb/engine';
import type { Warning } from '@redis-benchdb/result';

/**
 * IO_THREADS_OVER_CPUS, for a launched server pinned to fewer CPUs than its io-threads (which count
 * the main thread). Redis's and Valkey's I/O threads busy-wait for their next batch; on too few
 * CPUs each waits out the others' time slices, and throughput falls by an order of magnitude (one
 * CPU, io-threads 2: a median 18x slower for Redis, 53x for Valkey 8.0.1; data/README.md). The
 * figure is true for that setup, so it is kept, but a reader must not take it for what io-threads
 * does on a machine with the cores for it.
 */
export function ioThreadsWarning(ioThreads: number | null, pinnedTo: string | null): Warning | null {
  if (ioThreads === null || ioThreads <= 1 || pinnedTo === null) return null;
  const cpus = parseCpuList(pinnedTo, 'the server CPUs', Number.MAX_SAFE_INTEGER).length;
  if (ioThreads <= cpus) return null;
  const on = cpus === 1 ? `one CPU (${pinnedTo})` : `${cpus} CPUs (${pinnedTo})`;
  return {
    code: 'IO_THREADS_OVER_CPUS',
    message: `io-threads ${ioThreads} on a server pinned to ${on}: its threads wait for each other's time slices, so these figures measure that contention, not what io-threads gives a machine with the cores for it. Give the server at least ${ioThreads} CPUs with --server-cpus, or measure io-threads ${cpus}.`,
    cell: null,
  };
}
