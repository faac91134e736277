import { MIN_VALUES_FOR_MEDIAN_CI, spreadKindOf, spreadText } from './spread.js';

/**
 * Which cells count towards an aggregate: a ranking, an explorer bar, a headline, an over-time line,
 * a rank. One rule for every view (site, read API, CLI), so a figure that is not the server's own
 * never moves a summary. A cell is admitted only when none of these holds:
 *   - BUSY_HOST, CPU_STEAL: something else took the CPUs while it ran;
 *   - DRIFT: the run's first cell, measured again at the end, disagreed (the machine changed);
 *   - IO_THREADS_OVER_CPUS: the server's threads outnumber the CPUs it may use;
 *   - ERRORS: most replies were errors;
 *   - incomplete: the cell (or its run) did not finish;
 *   - a commandstats mismatch: the server did not count the commands the client sent;
 *   - CLIENT_BOUND, for a figure that ranks servers: the client, not the server, was the limit;
 *   - PROVISIONAL, OUTLIER: the result's standing (corroboration.ts): nothing independent has vouched
 *     for its signer's figures yet, or they lie beyond 3 MADs of its kind's admitted results.
 * UNSTABLE is not a reason: its figure is the server's, with a wider interval, which the view shows.
 */
export const ADMISSION_REASONS = [
  'BUSY_HOST',
  'CPU_STEAL',
  'DRIFT',
  'IO_THREADS_OVER_CPUS',
  'ERRORS',
  'INCOMPLETE',
  'COMMANDSTATS_MISMATCH',
  'CLIENT_BOUND',
  'OUTLIER',
  'PROVISIONAL',
] as const;
export type AdmissionReason = (typeof ADMISSION_REASONS)[number];

/** How each reason reads in a "left out" list. */
export const ADMISSION_REASON_TEXT: Record<AdmissionReason, string> = {
  BUSY_HOST: 'busy host',
  CPU_STEAL: 'CPU steal',
  DRIFT: 'drift',
  IO_THREADS_OVER_CPUS: 'io-threads over CPUs',
  ERRORS: 'mostly errors',
  INCOMPLETE: 'incomplete',
  COMMANDSTATS_MISMATCH: 'commandstats mismatch',
  CLIENT_BOUND: 'client-bound',
  OUTLIER: 'outlier',
  PROVISIONAL: 'provisional (not yet corroborated)',
};

export interface AdmissionInput {
  /** Warning codes that apply to the cell: its own, its run's (a cell-less warning), its no-verdict flags. */
  codes: Iterable<string>;
  incomplete: boolean;
  /** The cell's commandstats cross-check status: "match", "mismatch", or null/other when not checked. */
  crossCheck: string | null;
  /** true for a figure that ranks servers (every aggregate of ops/s does). */
  ranksServers: boolean;
}

/** The reasons a cell is left out, in ADMISSION_REASONS order; empty: admitted. */
export function admissionReasons(c: AdmissionInput): AdmissionReason[] {
  const codes = new Set(c.codes);
  if (c.incomplete) codes.add('INCOMPLETE');
  if (c.crossCheck === 'mismatch') codes.add('COMMANDSTATS_MISMATCH');
  return ADMISSION_REASONS.filter((r) => codes.has(r) && (r !== 'CLIENT_BOUND' || c.ranksServers));
}

/**
 * "3 results left out: 2 busy host, 1 io-threads over CPUs". Each result is counted once, under its
 * first reason; null when nothing was left out.
 */
export function leftOutText(reasonsByResult: ReadonlyMap<string, readonly AdmissionReason[]>): string | null {
  const counts = new Map<AdmissionReason, number>();
  let n = 0;
  for (const reasons of reasonsByResult.values()) {
    const first = reasons[0];
    if (!first) continue;
    n++;
    counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  if (n === 0) return null;
  const parts = ADMISSION_REASONS.filter((r) => counts.has(r)).map(
    (r) => `${counts.get(r)} ${ADMISSION_REASON_TEXT[r]}`,
  );
  return `${n} result${n === 1 ? '' : 's'} left out: ${parts.join(', ')}`;
}

/**
 * How a figure states its spread (spread.ts): a 95% interval of the median only from
 * MIN_RESULTS_FOR_MEDIAN_CI values on (order statistics reach 95% coverage at 6 values: with 5 or
 * fewer the "interval" would be the whole range), else the range of the k values, called so. One
 * result's figure is the median of its trials, so its spread is of its `trials`; several results'
 * figure is the median of their medians, so its spread is of those.
 */
export const MIN_RESULTS_FOR_MEDIAN_CI = MIN_VALUES_FOR_MEDIAN_CI;

export function spreadLabel(results: number, trials: number): string {
  return results <= 1
    ? spreadText({ kind: spreadKindOf(trials), n: trials }, 'trial')
    : spreadText({ kind: spreadKindOf(results), n: results }, 'result');
}

/** What admission reads of one cell of a signed result, as its document records it. */
export interface ResultCellAdmission {
  label: string;
  reasons: AdmissionReason[];
  unstable: boolean;
}
