import { coefficientOfVariation, tQuantile } from './stats.js';

/**
 * Between-run noise: how far two runs of one setup on one machine fall apart. A cell's own 95%
 * interval comes from its trials, which ran minutes apart in one run; whatever changes between runs
 * (another job on the host, a throttled CPU, where the kernel put the server) is not in it. So a
 * verdict must also clear the spread of repeated results of the same environment and workload.
 */

/**
 * The between-run coefficient of variation assumed for an environment and workload with fewer than
 * MIN_REPEATED_RESULTS repeated results in the database.
 *
 * Measured on the project's 2-vCPU development VM (AMD EPYC, KVM) on 2026-11-24, quiet: the quick
 * suite run 5 times, pinned, each against its own redis-server 7.0.15 (`pnpm bench:noise
 * --quiet-runs 5 --hog-runs 2`). The CV of a cell's median across the 5 runs was 3.9% to 17.3%,
 * median 9.2% (docs/BENCHMARKS.md has every cell). The default is the largest, rounded up: a
 * verdict must stay silent for every cell of two equal runs, not for the typical one, and a machine
 * nobody has measured is not assumed to be steadier than this one.
 */
export const DEFAULT_BETWEEN_RUN_CV = 0.18;

/**
 * Fewer repeated results than this and the spread they show is not taken as the environment's own
 * (two results give a CV from one degree of freedom): the default applies. With 3, the band uses
 * Student's t at 2 degrees of freedom (4.3), so a small spread by chance still leaves a wide band.
 */
export const MIN_REPEATED_RESULTS = 3;

/**
 * A measured CV is never taken below this: three runs that happen to agree to 0.1% do not make a
 * machine that steady, and a band of nothing would turn every difference into a verdict.
 */
export const MIN_BETWEEN_RUN_CV = 0.01;

export interface BetweenRunNoise {
  /** Coefficient of variation of one run's median ops/s across runs (0.05 = 5%). */
  cv: number;
  /** Repeated results of this environment and workload found: the n behind a measured CV. */
  results: number;
  /** measured: from those results (at least MIN_REPEATED_RESULTS); default: DEFAULT_BETWEEN_RUN_CV. */
  source: 'measured' | 'default';
}

/**
 * The between-run noise shown by these medians, one per repeated result of one environment fingerprint
 * and one workload fingerprint: measured when there are enough of them, else the stated default.
 */
export function betweenRunNoise(medians: readonly number[]): BetweenRunNoise {
  const results = medians.length;
  const cv = results >= MIN_REPEATED_RESULTS ? coefficientOfVariation(medians) : null;
  if (cv === null) return { cv: DEFAULT_BETWEEN_RUN_CV, results, source: 'default' };
  return { cv: Math.max(cv, MIN_BETWEEN_RUN_CV), results, source: 'measured' };
}

/** The same from a count, a mean and a sample standard deviation (what SQL aggregates give). */
export function noiseFromMoments(results: number, mean: number, sd: number): BetweenRunNoise {
  if (results < MIN_REPEATED_RESULTS || !(mean > 0) || !Number.isFinite(sd))
    return { cv: DEFAULT_BETWEEN_RUN_CV, results, source: 'default' };
  return { cv: Math.max(sd / mean, MIN_BETWEEN_RUN_CV), results, source: 'measured' };
}

/** The normal 0.975 quantile: the multiplier for a default CV, which is taken as known. */
const Z975 = 1.959963984540054;

/**
 * Half the width of the band, in natural-log units, inside which two single runs of one setup fall
 * 95% of the time: q · √(cvA² + cvB²), the CV standing for the standard deviation of log ops/s. q is
 * Student's t with the fewest degrees of freedom behind a measured side (n - 1), or the normal
 * quantile when both sides use the default.
 */
export function noiseBand(a: BetweenRunNoise, b: BetweenRunNoise): number {
  const measured = [a, b].filter((n) => n.source === 'measured').map((n) => n.results - 1);
  const q = measured.length > 0 ? tQuantile(0.95, Math.max(1, Math.min(...measured))) : Z975;
  return q * Math.hypot(a.cv, b.cv);
}

/** "CV 2.1% measured over 6 repeated results", "default CV 5.0%: 2 repeated results, 3 needed". */
export function describeNoise(n: BetweenRunNoise): string {
  const cv = `CV ${(n.cv * 100).toFixed(1)}%`;
  return n.source === 'measured'
    ? `${cv} measured over ${n.results} repeated results`
    : `default ${cv}: ${n.results} repeated result${n.results === 1 ? '' : 's'}, ${MIN_REPEATED_RESULTS} needed`;
}
