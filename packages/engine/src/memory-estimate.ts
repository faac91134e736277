import { compileTest, type TestDefinition } from './commands.js';
import { type CellOptions, valueRange } from './options.js';
import { cellTests, READ_TESTS } from './session.js';

/**
 * How much memory a cell needs, before it runs: the runner's (its request buffers) and the server's
 * (the keys it will hold). The runner's figures follow where the engine allocates, and were checked
 * against the peak RSS (VmHWM) of `redis-benchdb run` on Node 20, x64, on 2026-12-07:
 *
 *   -d 1KiB -c 50: 152 MB        -d 16MiB -c 1: 212 MB, -c 4: 252 MB, -c 8: 320 MB
 *   -d 64MiB -c 1: 340 MB, -c 2: 406 MB (the 3.45 GB at -c 50 is 150 + 52 x 64 MiB)
 *   -d 1MiB -P 16 -c 4: 226 MB, -c 8: 290 MB (16 MiB a connection: P x the request)
 *   -d 4MiB -c 4: 187 MB, with --threads 2: 223 MB
 *
 * So: the process itself; per worker thread the value pool and one pre-encoded request (2 x the
 * largest request); per connection P requests (its send buffer, or its pre-encoded copies).
 */

/**
 * The runner with its engine and probes loaded, before any cell: measured 152 MB at -d 1KiB -c 50
 * on Node 20. Node 24 takes more: the test plan of memory-budget.test (-d 8MiB -c 8 -P 2) peaked at
 * 285-291 MiB on Node 20 and at 315-349 MiB on Node 24 on a loaded host, so the base leaves room.
 */
export const RUNNER_BASE_BYTES = 224 * 1024 * 1024;
/** Each worker thread past the first: its V8 isolate (measured 25-35 MB). */
export const WORKER_THREAD_BYTES = 32 * 1024 * 1024;
/** A GET preload's connections and pipeline (session.ts prepare). */
const PRELOAD_CONNECTIONS = 16;
const PRELOAD_PIPELINE = 32;
/** LRANGE's list: 600 values, pushed 100 at a time as one command (session.ts prepare). */
const LIST_PUSH_VALUES = 100;
/**
 * What Redis spends on one small string key beside its key and value bytes: the dict entry, the
 * object header and the SDS headers, rounded up by jemalloc's size classes. Measured: Redis 7.0.15
 * held 97.7 million 3-byte values under these keys in 9.74 GiB, 107 bytes a key, 76 beside the bytes.
 */
export const SERVER_BYTES_PER_KEY = 80;

export interface ClientMemoryEstimate {
  bytes: number;
  /** What needs it: the phase of the cell that peaks, in words, with the sizes that make it. */
  what: string;
}

/** The largest request of the cell's tests, in bytes, with a value of `valueMax`. */
function largestRequest(o: CellOptions, valueMax: number): number {
  return Math.max(...cellTests(o).list.map((t) => compileTest(t, 'rbdb:000000:', valueMax).maxBytes));
}

/** The peak memory of the runner while it runs cell `o`, and what makes it. */
export function estimateClientMemory(o: CellOptions): ClientMemoryEstimate {
  const [vmin, vmax] = valueRange(o.valueSizeBytes);
  const request = largestRequest(o, vmax);
  const threads = RUNNER_BASE_BYTES + (o.threads - 1) * WORKER_THREAD_BYTES + o.threads * (vmax + request);
  const phases: ClientMemoryEstimate[] = [
    {
      bytes: threads + o.connections * o.pipelineDepth * request,
      what: `${o.connections} connection${o.connections === 1 ? '' : 's'} × ${o.pipelineDepth} request${o.pipelineDepth === 1 ? '' : 's'} in flight × ${bytesText(request)}, and ${o.threads} thread${o.threads === 1 ? '' : 's'}`,
    },
  ];
  const tests = cellTests(o).list;
  if (o.preload && tests.some((t) => READ_TESTS.has(t.name))) {
    const c = Math.min(o.connections, PRELOAD_CONNECTIONS);
    const set = vmax + 64;
    phases.push({
      bytes: RUNNER_BASE_BYTES + 2 * set + c * PRELOAD_PIPELINE * set,
      what: `the preload's ${c} connections × ${PRELOAD_PIPELINE} SETs in flight × ${bytesText(set)}`,
    });
  }
  if (tests.some((t) => t.needsList))
    phases.push({
      // The value as a string, and the command that carries 100 of them.
      bytes: RUNNER_BASE_BYTES + (LIST_PUSH_VALUES + 1) * vmin,
      what: `the LRANGE list, pushed ${LIST_PUSH_VALUES} values of ${bytesText(vmin)} at a time`,
    });
  return phases.reduce((a, b) => (b.bytes > a.bytes ? b : a));
}

/**
 * How much the server needs for what the cell writes or preloads, beyond what it holds now: a key per
 * request up to the key space (-r), or, for a fixed key (LPUSH's mylist), an element per request.
 */
export function estimateServerMemory(o: CellOptions): { bytes: number; keys: number } | null {
  const tests = cellTests(o).list;
  const carriesValue = (t: TestDefinition) => t.parts.some((p) => p.kind === 'value');
  const toKeySpace = tests.some((t) => carriesValue(t) && t.parts.some((p) => p.kind === 'key'));
  const toOneKey = tests.some((t) => carriesValue(t) && t.parts.some((p) => p.kind === 'fixedKey'));
  const preloads = o.preload && tests.some((t) => READ_TESTS.has(t.name));
  // A timed cell may write the whole key space; to one key, as much as it has time for: not said.
  const n = o.requests ?? Number.POSITIVE_INFINITY;
  const keys = preloads ? o.keyspaceSize : toKeySpace ? Math.min(n, o.keyspaceSize) : toOneKey ? n : 0;
  if (keys === 0 || !Number.isFinite(keys)) return null;
  const [, vmax] = valueRange(o.valueSizeBytes);
  return { keys, bytes: keys * (vmax + KEY_BYTES + SERVER_BYTES_PER_KEY) };
}

/** rbdb:<6 hex>:key:<12 digits>, as the engine names keys. */
const KEY_BYTES = 'rbdb:000000:key:000000000000'.length;

/** 1.5 GiB, 640 MiB, 12 KiB, 300 B: for messages. */
export function bytesText(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}
