import {
  type BenchSession,
  type CellOptions,
  type CellResult,
  type CellSummary,
  summarizeCell,
} from '@redis-benchdb/engine';
import { type DriftFigures, driftCheck } from '@redis-benchdb/probe';

/**
 * Whether a run ends by measuring its first cell again. Always for the suite; for ad hoc runs only
 * with more than one cell, because repeating the only cell of `run -t get` would double the run.
 */
export function wantsDriftCheck(suiteRun: boolean, cellCount: number): boolean {
  return suiteRun || cellCount > 1;
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
  const figures = (s: CellSummary) => ({
    median: s.opsPerSec.median,
    ci95Low: s.opsPerSec.ci95Low,
    ci95High: s.opsPerSec.ci95High,
    trialCount: s.trialCount,
  });
  return driftCheck(label, figures(first), figures(repeat));
}
