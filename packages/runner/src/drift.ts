import {
  type BenchSession,
  type CellOptions,
  type CellResult,
  type CellSummary,
  summarizeCell,
} from '@redis-benchdb/engine';
import { type DriftFigures, driftCheck } from '@redis-benchdb/probe';
import { spreadOf } from '@redis-benchdb/result';

/**
 * Whether a run ends by measuring its first cell again. Always for the suite; for ad hoc runs only
 * with more than one cell, because repeating the only cell of `run -t get` would double the run.
 */
export function wantsDriftCheck(suiteRun: boolean, cellCount: number): boolean {
  return suiteRun || cellCount > 1;
}

/** Tests whose figures do not depend on what the cells before them wrote. */
const STATE_FREE_TESTS = new Set(['PING_INLINE', 'PING_MBULK', 'GET']);

/**
 * The cell a run measures again at its end: the first whose figures do not depend on the state the
 * run left behind, so that a difference means the machine changed. Repeating the suite's first
 * cell, SET, was not: the first SET writes into an empty key space and its repeat overwrites a full
 * one, which read as a 1.57x drift on a quiet machine. A GET reads its preloaded key space, and a
 * PING reads nothing. With no such cell, the first cell. Never a search cell (--slo, the suite's SLO
 * cells): its trial is the answer's step, which a plain repeat does not measure again; with only
 * those, -1 (no drift check).
 */
export function driftCellIndex(cells: readonly { options: CellOptions; slo?: unknown }[]): number {
  const i = cells.findIndex(
    ({ options: o, slo }) =>
      !slo && STATE_FREE_TESTS.has(o.test) && !o.setGetRatio && (o.test !== 'GET' || o.preload === true),
  );
  return i >= 0 ? i : cells.findIndex((c) => !c.slo);
}

/** Measure `cell` again with as many trials as it had, and compare with its first measurement. */
export async function measureDrift(
  session: BenchSession,
  cell: { label: string; options: CellOptions },
  first: CellSummary,
  signal: AbortSignal,
): Promise<DriftFigures | null> {
  const results: CellResult[] = [];
  for (let t = 0; t < first.trialCount && !signal.aborted; t++) {
    const r = await session.runCell(cell.options, { signal });
    if (r.incomplete) return null;
    results.push(r);
  }
  return driftFrom(cell.label, first, results);
}

/** The drift figures of a repeat measurement; null unless it is complete (as many whole trials as the first). */
export function driftFrom(label: string, first: CellSummary, results: CellResult[]): DriftFigures | null {
  if (results.length < first.trialCount || results.some((r) => r.incomplete)) return null;
  const repeat = summarizeCell(label, results);
  // The DRIFT rule reads each side's spread (packages/result spread.ts) from its trials: the 95%
  // interval of the median from 6 trials, else the range of the trials, which the warning calls so. The
  // fields keep the result format's names (DriftSummary); docs/RESULT-FORMAT.md says what they hold.
  const figures = (s: CellSummary) => {
    const spread = spreadOf(s.trials.map((t) => t.opsPerSec));
    return {
      median: s.opsPerSec.median,
      ci95Low: spread.low,
      ci95High: spread.high,
      trialCount: s.trialCount,
    };
  };
  return driftCheck(label, figures(first), figures(repeat));
}
