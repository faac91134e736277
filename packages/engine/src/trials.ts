import {
  encodeHistogram,
  type IncompleteReason,
  isUnstable,
  type LatencySummaryUs,
  mergeEncodedHistograms,
  summarizeHistogram,
  summarizeTrials,
  workloadFingerprint,
} from '@redis-benchdb/result';
import type { CellOptions } from './options.js';
import type { CellFigures, CellResult, ErrorReplies, Stall, WrongReplies } from './session.js';

/**
 * A cell over its trials: every trial kept, the figures a reader compares summarised. The figures
 * (CellFigures) are merged over the trials: histograms summed, never averaged; counts, redirects,
 * error replies and wrong replies summed (errorReplies' successOpsPerSec is the trials' median, its
 * example and the wrong replies' type the first trial's); the stall the longest; saturation that of
 * the trial whose throughput is the median's, or nearest to it; any trial's cross-check mismatch, or
 * failure, is the cell's.
 */
export interface CellSummary extends CellFigures {
  label: string;
  test: string;
  workloadFingerprint: string;
  workload: CellOptions;
  trialCount: number;
  /** Median over trials, bootstrap 95% CI of the median, coefficient of variation. */
  opsPerSec: { median: number; ci95Low: number; ci95High: number; cv: number | null };
  unstable: boolean;
  /**
   * Each trial as run; `redirects` only in cluster mode, and `errorReplies`, `stall` and
   * `incompleteReason` only when there is one, as in the result schema.
   */
  trials: TrialRecord[];
}

export type TrialRecord = Omit<
  CellResult,
  | 'test'
  | 'workload'
  | 'redirects'
  | 'errorReplies'
  | 'stall'
  | 'incompleteReason'
  | 'sendLatenessUs'
  | 'wrongReplies'
> & {
  redirects?: { moved: number; ask: number };
  sendLatenessUs?: LatencySummaryUs;
  errorReplies?: ErrorReplies;
  stall?: Stall;
  incompleteReason?: IncompleteReason;
};

export function summarizeCell(label: string, trials: CellResult[]): CellSummary {
  if (trials.length === 0) throw new RangeError(`cell ${label}: no trials to summarize`);
  const first = trials[0]!;
  const ops = trials.map((t) => t.opsPerSec);
  const stats = summarizeTrials(ops);
  // `unstable` is decided on the CV as stored, so a reader recomputing it from the file agrees.
  const cv = stats.cv === null ? null : Math.round(stats.cv * 1e4) / 1e4;
  const hist = mergeEncodedHistograms(trials.map((t) => t.histogram));
  const withResponse = trials.filter((t) => t.responseHistogram !== null);
  const response = withResponse.length
    ? mergeEncodedHistograms(withResponse.map((t) => t.responseHistogram!))
    : null;
  const sum = (f: (t: CellResult) => number) => trials.reduce((a, t) => a + f(t), 0);
  const errors: Record<string, number> = {};
  for (const t of trials) for (const [k, v] of Object.entries(t.errors)) errors[k] = (errors[k] ?? 0) + v;
  const completed = sum((t) => t.completed);
  const nils = sum((t) => t.nils);
  const representative = trials.reduce((best, t) =>
    Math.abs(t.opsPerSec - stats.median) < Math.abs(best.opsPerSec - stats.median) ? t : best,
  );
  const mismatch = trials.find((t) => t.crossCheck.status === 'mismatch');
  const failed = trials.find((t) => t.incomplete);
  return {
    label,
    test: first.test,
    workloadFingerprint: workloadFingerprint(first.workload),
    workload: first.workload,
    trialCount: trials.length,
    opsPerSec: {
      median: round2(stats.median),
      ci95Low: round2(stats.ci95Low),
      ci95High: round2(stats.ci95High),
      cv,
    },
    unstable: isUnstable(cv),
    trials: trials.map(toTrialRecord),
    latencyUs: summarizeHistogram(hist),
    histogram: encodeHistogram(hist),
    responseTimeUs: response ? summarizeHistogram(response) : null,
    responseHistogram: response ? encodeHistogram(response) : null,
    completed,
    requested: first.requested === null ? null : sum((t) => t.requested ?? 0),
    bytesIn: sum((t) => t.bytesIn),
    bytesOut: sum((t) => t.bytesOut),
    errors,
    hitRatio:
      first.hitRatio === null || completed === 0
        ? null
        : Math.round(((completed - nils) / completed) * 1e6) / 1e6,
    saturation: representative.saturation,
    // A mismatch in any trial is the cell's: it means the counts cannot be trusted.
    crossCheck: mismatch?.crossCheck ?? failed?.crossCheck ?? representative.crossCheck,
    redirects: first.redirects
      ? { moved: sum((t) => t.redirects?.moved ?? 0), ask: sum((t) => t.redirects?.ask ?? 0) }
      : null,
    errorReplies: mergeErrorReplies(trials, completed),
    stall: trials.reduce<Stall | null>(
      (a, t) => (t.stall && (a === null || t.stall.maxGapMs > a.maxGapMs) ? t.stall : a),
      null,
    ),
    wrongReplies: mergeWrongReplies(trials),
    incomplete: failed !== undefined,
    incompleteReason: failed?.incompleteReason ?? null,
    error: failed?.error ?? null,
  };
}

function toTrialRecord(t: CellResult): TrialRecord {
  const {
    test: _t,
    workload: _w,
    redirects,
    errorReplies,
    stall,
    incompleteReason,
    sendLatenessUs,
    // The result records it as the cell's WRONG_REPLIES warning, not in each trial.
    wrongReplies: _wrong,
    ...rest
  } = t;
  return {
    ...rest,
    ...(sendLatenessUs ? { sendLatenessUs } : {}),
    ...(redirects ? { redirects } : {}),
    ...(errorReplies ? { errorReplies } : {}),
    ...(stall ? { stall } : {}),
    ...(incompleteReason ? { incompleteReason } : {}),
  };
}

function mergeErrorReplies(trials: CellResult[], completed: number): ErrorReplies | null {
  const withErrors = trials.filter((t) => t.errorReplies !== null);
  if (withErrors.length === 0) return null;
  const count = withErrors.reduce((a, t) => a + t.errorReplies!.count, 0);
  // A trial without errors succeeded at its full throughput.
  const success = trials.map((t) => t.errorReplies?.successOpsPerSec ?? t.opsPerSec).sort((a, b) => a - b);
  const mid = success.length >> 1;
  return {
    count,
    ratio: Math.round((count / Math.max(completed, count)) * 1e6) / 1e6,
    successOpsPerSec: round2(success.length % 2 ? success[mid]! : (success[mid - 1]! + success[mid]!) / 2),
    example: withErrors[0]!.errorReplies!.example,
  };
}

function mergeWrongReplies(trials: CellResult[]): WrongReplies | null {
  const wrong = trials.filter((t) => t.wrongReplies !== null);
  if (wrong.length === 0) return null;
  return { count: wrong.reduce((a, t) => a + t.wrongReplies!.count, 0), type: wrong[0]!.wrongReplies!.type };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
