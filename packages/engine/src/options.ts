import type { KeyPattern } from './keys.js';

// Also the package's light entry, @redis-benchdb/engine/options: option types, defaults and their
// validation, with no runtime import, so that a CLI's --help can show the defaults without loading
// the load generator (ioredis, worker threads). Keep it free of value imports.

export type PipelineMode = 'window' | 'batch';
export type Arrival = 'constant' | 'poisson';

/** Where the server is and how to talk to it. */
export interface Target {
  /** @default '127.0.0.1' */
  host: string;
  /** @default 6379 */
  port: number;
  /** A unix socket path; overrides host and port. */
  socket?: string;
  /** TLS; `true` uses the system's CAs. */
  tls?:
    | boolean
    | { caFile?: string; certFile?: string; keyFile?: string; servername?: string; insecure?: boolean };
  /** AUTH password (with `user`, an ACL user). */
  password?: string;
  user?: string;
  /** SELECT this database. @default 0 */
  db: number;
  /** Speak RESP3 (HELLO 3) on the measured connections. @default false */
  resp3: boolean;
  /**
   * Redis Cluster: host and port name any node; the slots are read from it and each request goes
   * to its slot's primary, following MOVED and ASK. @default false
   */
  cluster?: boolean;
  /**
   * Seconds to wait for a reply while requests are outstanding before the cell ends as
   * incomplete (the server stopped answering); also each control command's deadline. 0 waits
   * forever. @default DEFAULT_REPLY_TIMEOUT_SEC
   */
  replyTimeoutSec?: number;
}

/**
 * Why cluster mode cannot reach this target, or null: the rules of a cluster target, written once.
 * The session refuses with it (ClusterModeError), and a CLI can say it before anything starts.
 */
export function clusterTargetRefusal(t: { socket?: string; db?: number }): string | null {
  if (t.socket !== undefined)
    return 'cluster mode needs a TCP address of any node (-h/-p): drop -s, the nodes are reached at the addresses the cluster announces';
  if (t.db !== undefined && t.db !== 0) return `a cluster serves database 0 only: drop --dbnum ${t.db}`;
  return null;
}

/**
 * 10 s: three orders of magnitude above a sane tail latency (a blocking fork or an expiry
 * storm takes tens to hundreds of ms), yet short enough that a stopped or wedged server is
 * noticed within one progress line instead of hanging the run (redis-benchmark waits forever).
 */
export const DEFAULT_REPLY_TIMEOUT_SEC = 10;

/**
 * A run whose server stops answering (SIGSTOP included) ends within --timeout plus this many
 * seconds of the stall: the cell ends at the deadline, each control command after it waits at
 * most 1 s (STALLED_CONTROL_TIMEOUT_MS in control.ts), and the first one that times out closes
 * the control connection, so that nothing else waits. The rest is signing and closing.
 */
export const STALL_END_MARGIN_SEC = 3;

/** A wait for a reply longer than this, short of the deadline, is a STALL: kept in the figures, and warned of. */
export const STALL_WARN_MS = 1000;

/** A cell whose replies are more than this share errors measured the errors, not the command (ERRORS). */
export const ERRORS_RATIO = 0.5;

/** One cell: a single workload run against a target. */
export interface CellOptions {
  /** A test from the command list (SET, GET, LRANGE_100...) or 'CUSTOM' with `command`. */
  test: string;
  /** For CUSTOM: the command's words; `__key__`, `__rand_int__` and `__data__` are placeholders. */
  command?: string[];
  /** A mixed workload of SET and GET in this ratio, e.g. [1, 10]. Overrides `test`. */
  setGetRatio?: [number, number];
  /** @default 50 */
  connections: number;
  /** Requests in flight per connection. @default 1 */
  pipelineDepth: number;
  /** `window` refills as replies arrive (memtier_benchmark); `batch` sends P, waits for P (redis-benchmark -P). @default 'batch' */
  pipelineMode: PipelineMode;
  /** Value size in bytes, fixed or a [min, max] range drawn uniformly. @default 3 (redis-benchmark's -d) */
  valueSizeBytes: number | [number, number];
  /** Number of distinct keys. @default 1 (redis-benchmark without -r uses one key) */
  keyspaceSize: number;
  /** @default 'uniform' */
  keyPattern: KeyPattern;
  /** Zipf exponent. @default 0.99 */
  zipfExponent: number;
  /** Seed of every random choice, so a cell can be replayed. @default 1 */
  seed: number;
  /** Stop after this many measured requests... */
  requests?: number;
  /** ...or after this many seconds. One of the two is required. */
  durationSec?: number;
  /** Seconds of load before measuring; not recorded. @default 0 */
  warmupSec: number;
  /** Open loop: send at this many ops/s in total, and time from the intended send. */
  rateOpsPerSec?: number;
  /** @default 'constant' */
  arrival: Arrival;
  /** Worker threads sharing the connections. @default 1 */
  threads: number;
  /** Write every key of the key space before a read test, unmeasured, so reads hit. @default false */
  preload: boolean;
  /**
   * Set on a cell that stands for a search (run --slo): the objectives in canonical form, e.g.
   * `p99<=1000us`. Recorded and fingerprinted; the search itself is slo/search.ts.
   */
  slo?: string;
}

export const DEFAULT_TARGET: Target = { host: '127.0.0.1', port: 6379, db: 0, resp3: false };

export const DEFAULT_CELL_OPTIONS: CellOptions = {
  test: 'PING_INLINE',
  connections: 50,
  pipelineDepth: 1,
  pipelineMode: 'batch',
  valueSizeBytes: 3,
  keyspaceSize: 1,
  keyPattern: 'uniform',
  zipfExponent: 0.99,
  seed: 1,
  requests: 100_000,
  warmupSec: 0,
  arrival: 'constant',
  threads: 1,
  preload: false,
};

export class OptionsError extends Error {
  readonly code = 'ERR_OPTIONS';
}

/** Check a cell's options once, at the edge, with messages that say what to change. */
export function validateCellOptions(o: CellOptions): void {
  const positiveInt = (name: string, v: number, max = Number.MAX_SAFE_INTEGER) => {
    if (!Number.isInteger(v) || v < 1 || v > max)
      throw new OptionsError(`invalid ${name}: ${v} (expected a whole number from 1 to ${max})`);
  };
  positiveInt('connections', o.connections, 100_000);
  positiveInt('pipeline depth', o.pipelineDepth, 65_536);
  positiveInt('keyspace size', o.keyspaceSize, 1e12);
  positiveInt('threads', o.threads, 256);
  if (o.threads > o.connections)
    throw new OptionsError(
      `invalid threads: ${o.threads} threads for ${o.connections} connections (each thread needs a connection; use --threads <= -c)`,
    );
  const [vmin, vmax] = valueRange(o.valueSizeBytes);
  if (
    !Number.isInteger(vmin) ||
    !Number.isInteger(vmax) ||
    vmin < 0 ||
    vmax < vmin ||
    vmax > 512 * 1024 * 1024
  ) {
    throw new OptionsError(
      `invalid value size: ${JSON.stringify(o.valueSizeBytes)} (expected bytes, or a range MIN-MAX with 0 <= MIN <= MAX <= 512 MiB)`,
    );
  }
  if (o.pipelineMode !== 'window' && o.pipelineMode !== 'batch')
    throw new OptionsError(`invalid pipeline mode: ${o.pipelineMode} (expected window or batch)`);
  if (o.requests === undefined && o.durationSec === undefined)
    throw new OptionsError('a cell needs a request count (-n) or a duration (--duration)');
  if (o.requests !== undefined) positiveInt('request count', o.requests);
  if (o.durationSec !== undefined && !(o.durationSec > 0))
    throw new OptionsError(`invalid duration: ${o.durationSec} s (expected > 0)`);
  if (!(o.warmupSec >= 0)) throw new OptionsError(`invalid warm-up: ${o.warmupSec} s (expected >= 0)`);
  if (o.rateOpsPerSec !== undefined && !(o.rateOpsPerSec > 0))
    throw new OptionsError(`invalid rate: ${o.rateOpsPerSec} ops/s (expected > 0)`);
  if (o.arrival !== 'constant' && o.arrival !== 'poisson')
    throw new OptionsError(`invalid arrival: ${o.arrival} (expected constant or poisson)`);
  if (o.setGetRatio) {
    const [s, g] = o.setGetRatio;
    if (!Number.isInteger(s) || !Number.isInteger(g) || s < 0 || g < 0 || s + g === 0 || s + g > 10_000) {
      throw new OptionsError(`invalid set:get ratio: ${s}:${g} (expected whole numbers like 1:10)`);
    }
  }
}

export function valueRange(v: number | [number, number]): [number, number] {
  return typeof v === 'number' ? [v, v] : v;
}

/** How long an SLO search (run --slo) may take by default; run --slo-budget changes it. */
export const DEFAULT_SLO_BUDGET_SEC = 60;
