import { type BenchSession, type CellResult, summarizeCell } from '@redis-benchdb/engine';
import type { DriftFigures } from '@redis-benchdb/probe';
import type { PlannedCells } from './cells.js';
import { driftCellIndex, measureDrift, wantsDriftCheck } from './drift.js';
import { CellInterference, localServerPidOf } from './interference.js';
import type { MeasuredCell } from './result-document.js';
import { type SloSearchReport, searchCell } from './slo-search.js';

/** A trial's progress, as the engine reports it (onProgress). */
export interface CellProgress {
  /** The cell's label, with its trial when it has several. */
  label: string;
  cellIndex: number;
  cells: number;
  completed: number;
  requested: number | null;
  elapsedSec: number;
  durationSec: number | null;
}

/** What a run on one server tells as it goes, for the caller to show: the runner prints nothing. */
export interface RunCellsReport extends SloSearchReport {
  progress(p: CellProgress): void;
  /** A cell's trials ended (or one threw). */
  cellEnded(): void;
  /** A cell, summarised over its trials. */
  measured(summary: MeasuredCell): void;
  /** The drift cell is about to run again. */
  measuringDrift(cell: string): void;
}

export interface RunCellsOptions {
  /** Aborted to stop the load (the first Ctrl-C): what was measured is kept. */
  signal: AbortSignal;
  report: RunCellsReport;
}

/**
 * Every cell's trials, each told to the report as it ends. Stops at an interruption, at a cell cut
 * short, or at a cell that threw (`failure`), which must not skip the cleanup after it.
 */
export async function runCells(
  session: BenchSession,
  planned: PlannedCells,
  serverIsLocal: boolean | null,
  opts: RunCellsOptions,
): Promise<{ summaries: MeasuredCell[]; failure: string | null }> {
  const summaries: MeasuredCell[] = [];
  const serverPid = await localServerPidOf(session, serverIsLocal);
  let failure: string | null = null;
  for (const [i, cell] of planned.cells.entries()) {
    if (opts.signal.aborted) break;
    const results: CellResult[] = [];
    const interference = new CellInterference(serverPid);
    try {
      await runTrials(session, planned, i, interference, results, opts);
    } catch (err) {
      failure = `${cell.label}: ${(err as Error).message}`;
    }
    opts.report.cellEnded();
    if (results.length > 0) {
      const summary = { ...summarizeCell(cell.label, results), interference: interference.summary() };
      summaries.push(summary);
      opts.report.measured(summary);
      if (summary.incomplete && !opts.signal.aborted) break;
    }
    if (failure) break;
  }
  return { summaries, failure };
}

/** Cell `i`'s trials into `results` (kept when a later one throws), each a load or an --slo search. */
async function runTrials(
  session: BenchSession,
  planned: PlannedCells,
  i: number,
  interference: CellInterference,
  results: CellResult[],
  opts: RunCellsOptions,
): Promise<void> {
  const { cells, trials } = planned;
  const cell = cells[i]!;
  for (let t = 0; t < trials && !opts.signal.aborted; t++) {
    const label = trials > 1 ? `${cell.label} (trial ${t + 1}/${trials})` : cell.label;
    if (cell.slo) {
      const hooks = { signal: opts.signal, ...interference.hooks };
      const r = await searchCell(session, cell.options, cell.slo, label, hooks, opts.report);
      results.push(r);
      if (r.incomplete) break;
      continue;
    }
    const r = await session.runCell(cell.options, {
      signal: opts.signal,
      ...interference.hooks,
      onProgress: (completed, requested, elapsedSec) =>
        opts.report.progress({
          label,
          cellIndex: i,
          cells: cells.length,
          completed,
          requested,
          elapsedSec,
          durationSec: cell.options.durationSec ?? null,
        }),
    });
    results.push(r);
    if (r.incomplete) break;
  }
}

/**
 * A cell again, to see whether the machine changed while the run went on; null when not measured
 * (a run cut short or failed, or one the check is not for: wantsDriftCheck).
 */
export async function checkRunDrift(
  session: BenchSession,
  planned: PlannedCells,
  run: { summaries: MeasuredCell[]; failure: string | null },
  opts: RunCellsOptions,
): Promise<DriftFigures | null> {
  const { cells } = planned;
  const driftAt = driftCellIndex(cells);
  const first = run.summaries[driftAt];
  if (!first || run.failure || opts.signal.aborted || run.summaries.length !== cells.length) return null;
  if (!wantsDriftCheck(planned.suite !== null, cells.length)) return null;
  opts.report.measuringDrift(first.label);
  return measureDrift(session, cells[driftAt]!, first, opts.signal).catch(() => null);
}
