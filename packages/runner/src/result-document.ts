import { type CellOptions, type CellSummary, ERRORS_RATIO, SUITES, type Target } from '@redis-benchdb/engine';
import {
  cellWarning,
  type DriftFigures,
  driftWarning,
  environmentWarnings,
  type InterferenceFigures,
  interferenceWarnings,
} from '@redis-benchdb/probe';
import {
  type Cell,
  type Cluster,
  cleanNullableText,
  cleanText,
  crossCheckShortfall,
  describeShortfall,
  type ResultV1,
  TEXT_MAX,
  type Warning,
  type Workload,
} from '@redis-benchdb/result';
import type { collectEnvironment } from './environment.js';

/** A cell as measured: its trials summarised, and what else ran on the host meanwhile. */
export type MeasuredCell = CellSummary & { interference?: InterferenceFigures | null };

export interface RunRecord {
  /** The version of the redis-benchdb that ran, as the result's runner.version. */
  runnerVersion: string;
  suite: { id: string; profile: 'quick' | 'full' | 'compare' } | null;
  target: Target;
  keyPrefix: string;
  environment: Awaited<ReturnType<typeof collectEnvironment>>;
  cells: MeasuredCell[];
  startedAt: Date;
  finishedAt: Date;
  interrupted: boolean;
  plannedCells: number;
  error: string | null;
  cleanup: { removedKeys: number | null; error: string | null };
  /** The group this run belongs to (run --server-bin ...), absent for a single run. */
  runGroup?: NonNullable<ResultV1['runGroup']>;
  /** Warnings the caller knows of, e.g. NOT_PINNED. */
  extraWarnings?: Warning[];
  /** The first cell measured again at the end (null when skipped or cut short). */
  driftCheck?: DriftFigures | null;
  /** Cluster mode: the topology the session discovered (BenchSession.cluster.topology). */
  cluster?: Cluster | null;
}

/** More than ERRORS_RATIO of the cell's replies were errors: its ops/s are not the command's. */
export function isErrorDominated(c: CellSummary): boolean {
  return (c.errorReplies?.ratio ?? 0) > ERRORS_RATIO;
}

/** What was wrong with a cell's replies (WRONG_REPLIES), or null when nothing was. */
export function wrongRepliesDetail(c: CellSummary): string | null {
  const parts: string[] = [];
  if (c.wrongReplies) {
    const n = c.wrongReplies.count;
    parts.push(
      `${n.toLocaleString('en-US')} repl${n === 1 ? 'y' : 'ies'} to ${c.test} ${n === 1 ? 'was' : 'were'} ${RESP_TYPE_NAMES[c.wrongReplies.type] ?? `of RESP type '${c.wrongReplies.type}'`}, which ${c.test} never returns`,
    );
  }
  if (crossCheckShortfall(c.crossCheck)) parts.push(describeShortfall(c.crossCheck));
  return parts.length ? `${parts.join('; ')}.` : null;
}

const RESP_TYPE_NAMES: Record<string, string> = {
  '+': 'a status',
  ':': 'an integer',
  $: 'a bulk string',
  '*': 'an array',
  '%': 'a map',
  '~': 'a set',
  _: 'a null',
  ',': 'a double',
  '#': 'a boolean',
  '(': 'a big number',
  '=': 'a verbatim string',
};

/** The result document a run signs: what was measured, on what, how noisy, and what to beware of. */
export function buildResultDocument(r: RunRecord): ResultV1 {
  const cells = r.cells.map(toCell);
  const warnings: Warning[] = [
    ...(environmentWarnings(r.environment) as Warning[]),
    ...(r.extraWarnings ?? []),
  ];
  for (const c of r.cells) {
    if (c.saturation.clientBound) {
      warnings.push(
        cellWarning(
          'CLIENT_BOUND',
          c.label,
          `client event-loop utilisation ${c.saturation.clientEventLoopUtilization.join(', ')}, server main thread ${c.saturation.serverMainThreadCpuShare ?? 'unknown'}`,
        ) as Warning,
      );
    }
    if (c.unstable)
      warnings.push(
        cellWarning(
          'UNSTABLE',
          c.label,
          `coefficient of variation ${c.opsPerSec.cv} over ${c.trialCount} trials`,
        ) as Warning,
      );
    if (isErrorDominated(c)) {
      const e = c.errorReplies!;
      warnings.push(
        cellWarning(
          'ERRORS',
          c.label,
          `${e.count} of ${c.completed} replies (${(e.ratio * 100).toFixed(2)}%) were errors, e.g. "${e.example}"; ${e.successOpsPerSec} successful ops/s`,
        ) as Warning,
      );
    }
    // A wait that hit the deadline is the cell's error already; STALL is for the ones it survived.
    if (c.stall && c.incompleteReason !== 'reply-timeout')
      warnings.push(
        cellWarning(
          'STALL',
          c.label,
          `longest wait ${(c.stall.maxGapMs / 1000).toFixed(2)} s, beginning ${c.stall.atSec.toFixed(1)} s into the measured phase`,
        ) as Warning,
      );
    const wrong = wrongRepliesDetail(c);
    if (wrong) warnings.push(cellWarning('WRONG_REPLIES', c.label, wrong) as Warning);
    if (c.interference) warnings.push(...interferenceWarnings(c.label, c.interference));
    for (const t of c.trials)
      if (t.sloSearch && t.sloSearch.outcome !== 'bracketed')
        warnings.push({
          code: 'SLO_UNBRACKETED',
          cell: c.label,
          message: `no answer (${t.sloSearch.outcome}): ${t.sloSearch.reason}`,
        });
  }
  const drift = r.driftCheck ? driftWarning(r.driftCheck) : null;
  if (drift) warnings.push(drift);
  const t = r.target;
  return {
    schema: 'redis-benchdb/result.v1',
    runner: {
      name: 'redis-benchdb',
      version: r.runnerVersion,
      nodeVersion: process.version,
      engineMode: 'lean-resp',
      threads: Math.max(1, ...r.cells.map((c) => c.workload.threads)),
    },
    suite: r.suite
      ? { id: r.suite.id, version: SUITES[r.suite.id]!.version, profile: r.suite.profile }
      : null,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt.toISOString(),
    target: {
      host: t.host,
      port: t.port,
      socket: t.socket ?? null,
      tls: Boolean(t.tls),
      db: t.db,
      resp3: t.resp3,
      ...(r.cluster ? { cluster: r.cluster } : {}),
    },
    keyPrefix: r.keyPrefix,
    environment: r.environment as ResultV1['environment'],
    // Messages and errors quote what a server or the user sent: cleaned to what the format accepts.
    warnings: warnings.map((w) => ({ ...w, message: cleanText(w.message, TEXT_MAX.warningMessage) })),
    cells,
    interrupted: r.interrupted,
    incomplete:
      r.interrupted ||
      r.error !== null ||
      r.cells.length < r.plannedCells ||
      r.cells.some((c) => c.incomplete),
    error: errorText(r.error),
    cleanup: { ...r.cleanup, error: errorText(r.cleanup.error) },
    ...(r.runGroup ? { runGroup: r.runGroup } : {}),
    ...(r.driftCheck ? { driftCheck: r.driftCheck } : {}),
  };
}

function toCell(c: MeasuredCell): Cell {
  return {
    label: c.label,
    test: c.test,
    workloadFingerprint: c.workloadFingerprint,
    workload: toWorkload(c.workload),
    trialCount: c.trialCount,
    opsPerSec: c.opsPerSec,
    unstable: c.unstable,
    trials: (c.trials as Cell['trials']).map((t) => ({ ...t, error: errorText(t.error) })),
    latencyUs: c.latencyUs,
    histogram: c.histogram,
    responseTimeUs: c.responseTimeUs,
    responseHistogram: c.responseHistogram,
    completed: c.completed,
    requested: c.requested,
    bytesIn: c.bytesIn,
    bytesOut: c.bytesOut,
    errors: c.errors,
    hitRatio: c.hitRatio,
    saturation: c.saturation,
    crossCheck: c.crossCheck,
    ...(c.redirects ? { redirects: c.redirects } : {}),
    ...(c.errorReplies ? { errorReplies: c.errorReplies } : {}),
    ...(c.stall ? { stall: c.stall } : {}),
    ...(c.interference ? { interference: c.interference } : {}),
    incomplete: c.incomplete,
    ...(c.incompleteReason ? { incompleteReason: c.incompleteReason } : {}),
    error: errorText(c.error),
  };
}

const errorText = (s: string | null) => cleanNullableText(s, TEXT_MAX.error);

export function toWorkload(o: CellOptions): Workload {
  const [min, max] =
    typeof o.valueSizeBytes === 'number' ? [o.valueSizeBytes, o.valueSizeBytes] : o.valueSizeBytes;
  return {
    test: o.test,
    command: o.command ?? null,
    setGetRatio: o.setGetRatio ?? null,
    connections: o.connections,
    pipelineDepth: o.pipelineDepth,
    pipelineMode: o.pipelineMode,
    valueSizeBytes: { min, max },
    keyspaceSize: o.keyspaceSize,
    keyPattern: o.keyPattern,
    zipfExponent: o.zipfExponent,
    seed: o.seed,
    requests: o.requests ?? null,
    durationSec: o.durationSec ?? null,
    warmupSec: o.warmupSec,
    rateOpsPerSec: o.rateOpsPerSec ?? null,
    arrival: o.arrival,
    threads: o.threads,
    preload: o.preload,
    ...(o.slo ? { slo: o.slo } : {}),
  };
}
