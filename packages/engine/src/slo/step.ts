import { decodeHistogram, type SloObjective, type SloStep } from '@redis-benchdb/result';
import { ERRORS_RATIO } from '../options.js';
import type { CellResult } from '../session.js';

/** A step keeps up when at least this share of the offered rate was answered (and due). */
const MIN_ACHIEVED_RATIO = 0.99;

/**
 * The share of an objective beyond which the client's own send lateness makes a failed step the
 * client's, when the server answered within the objective once each request was sent: the
 * response time counts from the intended send, so a client that sends late adds its lateness to
 * every figure. At a quarter, a server with room to spare can still fail the step.
 */
export const CLIENT_LATE_SHARE = 0.25;

/**
 * Percentiles do not add exactly: a response-time percentile within this factor of the service and
 * lateness percentiles summed is explained by them.
 */
const EXPLAINED_SLACK = 1.25;

/** A step as recorded, and what the search makes of it. */
export interface JudgedStep {
  step: SloStep;
  /** It fell short of the offered rate because the client, not the server, was the limit. */
  clientLimited: boolean;
  /** Its figures cannot be trusted: the server stalled, failed or answered with errors. */
  disturbed: string | null;
  /** It failed an objective while the client's own send lateness was CLIENT_LATE_SHARE of it or more. */
  clientLate: string | null;
}

/** Judge one open-loop step against the objectives and the keep-up rule. */
export function judgeStep(
  r: CellResult,
  offeredOpsPerSec: number,
  durationSec: number,
  warmupSec: number,
  objectives: readonly SloObjective[],
): JudgedStep {
  const failures: string[] = [];
  const percentilesUs = percentilesOf(r.responseHistogram, objectives);
  // From the actual send: what the server (and the link) took once a request was on its way.
  const serviceUs = percentilesOf(r.histogram, objectives);
  let clientLate: string | null = null;
  objectives.forEach((o, i) => {
    const got = percentilesUs[i]!;
    if (got <= o.maxUs) return;
    const late = latenessAt(r.sendLatenessUs, o.percentile);
    const visible = late !== null && late.us >= CLIENT_LATE_SHARE * o.maxUs;
    const sent = `from the actual send p${o.percentile} was ${ms(serviceUs[i]!)} ms; the client's own send lateness alone was ${ms(late?.us ?? 0)} ms at p${late?.percentile}`;
    // Over the objective from the actual send too: the server (with the link and the host) failed
    // it whatever the client added, and the step stays a failure of the objective. So does a step
    // whose response time is more than service and lateness together: the rest is requests waiting
    // for room in a full window, which is the server falling behind (measured: p99 21.3 ms from the
    // intended send against 5.4 ms served and 2.7 ms late, at 24,700 GET/s on a 2-vCPU VM).
    const explained = visible && got <= EXPLAINED_SLACK * (serviceUs[i]! + late.us);
    const own = explained && serviceUs[i]! <= o.maxUs ? sent : null;
    clientLate ??= own;
    failures.push(`p${o.percentile} ${ms(got)} ms > ${ms(o.maxUs)} ms${visible ? ` (${sent})` : ''}`);
  });
  const due = offeredOpsPerSec * durationSec;
  const backlog = Math.max(0, Math.round(due - r.completed));
  // Judged on counts, not on the cell's ops/s: those divide by the time to the last reply, which
  // adds the drain of the last requests (tens of ms) to a one-second step and reads 1-4% low.
  // Poisson arrivals make the count due vary by about its square root: three of those are allowed.
  const spread = r.workload.arrival === 'poisson' ? 3 * Math.sqrt(due) : 0;
  const keptUp = r.completed >= MIN_ACHIEVED_RATIO * due - spread;
  if (!keptUp)
    failures.push(
      `answered ${pct(r.completed / due)} of the ${Math.round(due)} requests due: ${backlog} fell behind`,
    );
  const s = r.saturation;
  // The client's event loop saturated while the server's main thread was not. A server that was
  // merely idle is no evidence: on a busy host a server starved of CPU looks idle too (measured:
  // 7% main-thread share, preempted 4,766 times, while other processes took 88% of the CPUs).
  const clientLimited = !keptUp && s.limitedBy === 'client';
  const disturbed = disturbance(r);
  if (disturbed) failures.push(disturbed);
  const strictest = objectives[objectives.length - 1]!.percentile;
  return {
    step: {
      offeredOpsPerSec,
      achievedOpsPerSec: Math.round((r.completed / durationSec) * 100) / 100,
      durationSec,
      warmupSec,
      completed: r.completed,
      backlog,
      tailSamples: Math.floor(r.completed * (1 - strictest / 100)),
      percentilesUs,
      responseTimeUs: r.responseTimeUs ?? r.latencyUs,
      responseHistogram: r.responseHistogram ?? r.histogram,
      ...(r.sendLatenessUs ? { sendLatenessUs: r.sendLatenessUs } : {}),
      saturation: s,
      pass: failures.length === 0,
      failures: failures.map((f) => f.slice(0, 500)),
    },
    clientLimited,
    disturbed,
    clientLate,
  };
}

/**
 * The client's send lateness at the summary percentile nearest at or below `percentile`: never
 * above it, so the client is blamed only for what it surely added.
 */
function latenessAt(
  late: CellResult['sendLatenessUs'],
  percentile: number,
): { us: number; percentile: number } | null {
  if (late === null || late.count === 0) return null;
  const points: [number, number][] = [
    [99.99, late.p9999Us],
    [99.9, late.p999Us],
    [99, late.p99Us],
    [95, late.p95Us],
    [90, late.p90Us],
    [50, late.p50Us],
  ];
  const at = points.find(([p]) => p <= percentile);
  return at ? { us: at[1], percentile: at[0] } : null;
}

/** Each objective's percentile from the histogram timed from the intended send. */
function percentilesOf(encoded: string | null, objectives: readonly SloObjective[]): number[] {
  if (encoded === null) return objectives.map(() => Number.POSITIVE_INFINITY);
  const h = decodeHistogram(encoded);
  if (h.totalCount === 0) return objectives.map(() => 0);
  // As summarizeHistogram does: a bucket's top can lie above the largest value recorded.
  return objectives.map((o) => Math.min(h.getValueAtPercentile(o.percentile), h.maxValue));
}

function disturbance(r: CellResult): string | null {
  if (r.incomplete) return `the step did not complete: ${r.error ?? r.incompleteReason ?? 'stopped'}`;
  if (r.stall) return `the server stalled: no reply for ${(r.stall.maxGapMs / 1000).toFixed(2)} s`;
  if (r.errorReplies && r.errorReplies.ratio > ERRORS_RATIO)
    return `most replies were errors, e.g. "${r.errorReplies.example}"`;
  if (r.crossCheck.status === 'mismatch' && (r.crossCheck.observed ?? 0) > r.crossCheck.expected)
    return `other clients ran the same commands meanwhile (the server counted ${r.crossCheck.observed}, the client ${r.crossCheck.expected})`;
  return null;
}

const ms = (us: number) => String(Math.round(us) / 1000);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
