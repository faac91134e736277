import type { IncompleteReason } from '@redis-benchdb/result';
import type { TestDefinition } from '../commands.js';
import type { KeyPattern } from '../keys.js';
import type { PipelineMode, Target } from '../options.js';

/**
 * What a driver needs to drive its share of a cell, whatever its connections are (see
 * ConnectionFactory). Plain data: it crosses threads, inside the worker's plan (run-workers.ts).
 */
export interface LoadPlan {
  workerIndex: number;
  workers: number;
  target: Target;
  /** Run prefix of every key, e.g. `rbdb:3f9c1a:`. */
  prefix: string;
  /** Tests and how they are interleaved (cycle holds indexes into tests). */
  tests: TestDefinition[];
  cycle: number[];
  connections: number;
  pipelineDepth: number;
  pipelineMode: PipelineMode;
  valueMin: number;
  valueMax: number;
  keyspaceSize: number;
  keyPattern: KeyPattern;
  zipfExponent: number;
  seed: number;
  /** This worker's share of the measured requests, or null when the cell runs for a duration. */
  requests: number | null;
  /** This worker's share of the open-loop rate, or null for a closed loop. */
  rateOpsPerSec: number | null;
  poisson: boolean;
}

export interface WorkerReport {
  workerIndex: number;
  /** Encoded HdrHistogram (µs) of the measured requests' service time. */
  histogram: string;
  /** Open loop: encoded histogram of the time from the intended send to the reply. */
  responseHistogram: string | null;
  /** Open loop: encoded histogram of the client's own send lateness (Workload.sendLateness). */
  sendLatenessHistogram: string | null;
  measuredCompleted: number;
  measuredElapsedMs: number;
  /** Replies received over the whole cell, warm-up included: what INFO commandstats must show. */
  totalCompleted: number;
  measuredErrors: Record<string, number>;
  totalErrors: Record<string, number>;
  measuredNils: number;
  measuredBytesIn: number;
  measuredBytesOut: number;
  /** Cluster mode: MOVED and ASK replies followed in the measured phase; null otherwise. */
  measuredRedirects: { moved: number; ask: number } | null;
  /** Redirects followed over the whole cell: the server counted each as a rejected call. */
  totalRedirects: number;
  /** Event-loop utilisation of this worker over the measured phase, 0..1. */
  eventLoopUtilization: number;
  /** The first error reply's message ('' if none): an example of what the server refused. */
  errorExample: string;
  /** Replies over the whole cell of a type the command cannot return (a nil or an error never is). */
  wrongTypeReplies: number;
  /** The first such reply's RESP type byte as a character (':' for an integer), '' if none. */
  wrongTypeExample: string;
  /** The longest wait for a reply in the measured phase, when it reached STALL_WARN_MS or the deadline. */
  stall: { maxGapMs: number; atSec: number } | null;
  /** The cell stopped before its end (reply deadline, lost connection, interrupt...). */
  incomplete: boolean;
  incompleteReason: IncompleteReason | null;
  error: string | null;
}

/** Messages from the main thread. */
/** `durationMs`: the worker stops itself this long after it starts measuring (null: at its request count). */
export type ControlMessage =
  | { type: 'start'; measure: boolean; durationMs: number | null }
  | { type: 'measure'; durationMs: number | null }
  | { type: 'stop' }
  | { type: 'abort' };

/** Messages from a worker. */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; message: string; code: string }
  | { type: 'progress'; measuredCompleted: number }
  | { type: 'done'; report: WorkerReport };
