import {
  type BenchSession,
  type CellOptions,
  type CellResult,
  runSloSearch,
  type SloSearchHooks,
  type SloSearchOptions,
} from '@redis-benchdb/engine';
import type { SloSearch, SloStep } from '@redis-benchdb/result';

/** What a search tells as it goes, for the caller to show: each step as it ends, then the answer. */
export interface SloSearchReport {
  sloStep(label: string, step: SloStep, index: number, slo: SloSearchOptions): void;
  sloAnswer(label: string, slo: SloSearchOptions, search: SloSearch): void;
}

/** One trial of an --slo cell: a search, its steps and its answer told to `report`. The trial is the answer's step. */
export async function searchCell(
  session: BenchSession,
  options: CellOptions,
  slo: SloSearchOptions,
  label: string,
  hooks: SloSearchHooks,
  report: SloSearchReport,
): Promise<CellResult> {
  const run = await runSloSearch(session, options, slo, {
    ...hooks,
    onStep: (step, i) => report.sloStep(label, step, i, slo),
  });
  report.sloAnswer(label, slo, run.search);
  return run.trial;
}
