/**
 * Cell warnings from the interference figures, and the run's drift warning. The thresholds come
 * from measurements on the project's 2-vCPU development VM (docs/BENCHMARKS.md, "Interference").
 */

import {
  BUSY_HOST_OTHER_CPU_FRACTION,
  CPU_STEAL_FRACTION,
  type InterferenceFigures,
  otherWorkUnknown,
  spreadKindOf,
  spreadText,
} from '@redis-benchdb/result';
import type { Warning } from './types.js';

// The thresholds are the verdict rules' own (packages/result verdict.ts), so that a reader of an older
// result judges its figures by the same numbers as the runner that flags them today.
export { BUSY_HOST_OTHER_CPU_FRACTION, CPU_STEAL_FRACTION };

/** The cell's interference warnings (none when the figures are unknown or below the thresholds). */
export function interferenceWarnings(cellLabel: string, f: InterferenceFigures): Warning[] {
  const out: Warning[] = [];
  if (f.otherCpuFraction !== null && f.otherCpuFraction > BUSY_HOST_OTHER_CPU_FRACTION) {
    const queue =
      f.runQueueMean !== null
        ? `, run queue mean ${f.runQueueMean} (max ${f.runQueueMax}) on ${f.cpuCount} CPU${f.cpuCount === 1 ? '' : 's'}`
        : '';
    const server =
      f.serverInvoluntaryCtxSwitches !== null
        ? `, the server was preempted ${f.serverInvoluntaryCtxSwitches} times`
        : '';
    out.push({
      code: 'BUSY_HOST',
      cell: cellLabel,
      message: `Other processes used ${pct(f.otherCpuFraction)} of this host's CPU time while this cell was measured (threshold ${pct(BUSY_HOST_OTHER_CPU_FRACTION)})${queue}${server}: the client and server shared their CPUs with other work, so this cell's throughput is lower and its latency higher than the setup alone gives.`,
    });
  }
  if (otherWorkUnknown(f)) {
    out.push({
      code: 'BUSY_HOST',
      cell: cellLabel,
      message: `Other work on this host could not be measured while this cell was measured (${f.note ?? 'no figure'}): the cell is not known to have had its CPUs to itself, so no verdict rests on it.`,
    });
  }
  if (f.stealFraction !== null && f.stealFraction > CPU_STEAL_FRACTION) {
    out.push({
      code: 'CPU_STEAL',
      cell: cellLabel,
      message: `The hypervisor took ${pct(f.stealFraction)} of the CPUs' time while this cell was measured (steal, threshold ${pct(CPU_STEAL_FRACTION)}): the virtual CPUs waited for other guests, so this cell measured the host's neighbours as well as Redis.`,
    });
  }
  return out;
}

export interface DriftFigures {
  cell: string;
  first: { median: number; ci95Low: number; ci95High: number; trialCount: number };
  repeat: { median: number; ci95Low: number; ci95High: number; trialCount: number };
  ratio: number;
  drifted: boolean;
}

/** A single trial has no interval: it gets ±10%, the spread above which a cell is UNSTABLE. */
const SINGLE_TRIAL_TOLERANCE = 0.1;

/**
 * The first cell against its repeat at the end of the run: drifted when each median lies outside
 * the other's spread (ci95Low–ci95High: the caller's, by packages/result spread.ts: the 95% interval
 * of the median from 6 trials, else the range of the trials), so neither trial noise in the first nor
 * in the repeat explains it.
 */
export function driftCheck(cell: string, first: DriftFigures['first'], repeat: DriftFigures['repeat']) {
  const ratio = first.median > 0 ? Math.round((repeat.median / first.median) * 1e4) / 1e4 : 0;
  const outside = (x: number, s: DriftFigures['first']) => {
    const [lo, hi] =
      s.trialCount > 1
        ? [s.ci95Low, s.ci95High]
        : [s.median * (1 - SINGLE_TRIAL_TOLERANCE), s.median * (1 + SINGLE_TRIAL_TOLERANCE)];
    return x < lo || x > hi;
  };
  const drifted = outside(repeat.median, first) && outside(first.median, repeat);
  return { cell, first, repeat, ratio, drifted } satisfies DriftFigures;
}

/** The run's DRIFT warning, or null when the repeat agreed. */
export function driftWarning(d: DriftFigures): Warning | null {
  if (!d.drifted) return null;
  // Named by what it is: with fewer than 6 trials no interval of the median reaches 95%, so it is a range.
  const range = (s: DriftFigures['first']) =>
    s.trialCount > 1
      ? `${fmt(s.median)} ops/s (${spreadText({ kind: spreadKindOf(s.trialCount), n: s.trialCount }, 'trial')} ${fmt(s.ci95Low)}–${fmt(s.ci95High)})`
      : `${fmt(s.median)} ops/s (1 trial)`;
  // About the whole run (every cell between the two measurements), so not a cell warning.
  return {
    code: 'DRIFT',
    cell: null,
    message: `The first cell (${d.cell}) measured again after the last one gave ${range(d.repeat)} against ${range(d.first)} at the start (${d.ratio}x): the machine or the server changed during the run, so its cells were not measured under the same conditions.`,
  };
}

function pct(x: number): string {
  return `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
}

function fmt(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}
