import {
  type CellOptions,
  DEFAULT_SLO_BUDGET_SEC,
  describeObjectives,
  type SloSearchOptions,
  SUITES,
  suiteCells,
  validateCellOptions,
  validateClusterCell,
} from '@redis-benchdb/engine';
import { RunnerError } from './errors.js';
import type { RunPlan } from './request.js';

export const SUITE_ID = 'standard-v1';

/** What a run measures: its cells in order, the trials of each, and the suite they come from. */
export interface PlannedCells {
  /** `slo`: a search cell (--slo, or one of the suite's), each trial one search; else null. */
  cells: { label: string; options: CellOptions; slo: SloSearchOptions | null }[];
  trials: number;
  suite: { id: string; profile: 'quick' | 'full' | 'compare' } | null;
}

/** The cells of a run (ad hoc from -t or a command, else the suite's profile), each checked before any load. */
export function planCells(plan: RunPlan): PlannedCells {
  try {
    const cells = plan.cells
      ? plan.cells.map((o) => ({ label: adHocLabel(o, plan), options: o, slo: plan.slo ?? null }))
      : suiteCells(SUITE_ID, plan.profile, plan.common).map((c) => ({
          ...c,
          slo: c.slo ? { objectives: c.slo, budgetSec: DEFAULT_SLO_BUDGET_SEC } : null,
        }));
    const trials = plan.trials ?? (plan.cells ? 1 : SUITES[SUITE_ID]!.profiles[plan.profile]!.trials);
    // Every cell is checked before any load: a bad one must not fail halfway through a suite.
    for (const c of cells) validateCellOptions(c.options);
    if (plan.target.cluster) for (const c of cells) validateClusterCell(c.options);
    if (cells.length === 0) throw new Error('no tests given: name some with -t (e.g. -t set,get)');
    const suite = plan.cells ? null : { id: SUITE_ID, profile: plan.profile as 'quick' | 'full' | 'compare' };
    return { cells, trials, suite };
  } catch (err) {
    throw new RunnerError((err as Error).message, 'ERR_USAGE');
  }
}

/** Ad hoc cells are named as redis-benchmark names its tests: the user chose the parameters. */
function adHocLabel(o: CellOptions, plan: RunPlan): string {
  const slo = plan.slo ? ` ${describeObjectives(plan.slo.objectives)}` : '';
  if (o.setGetRatio) return `SET:GET ${o.setGetRatio.join(':')}${slo}`;
  return (o.test === 'CUSTOM' ? (o.command ?? []).join(' ') : o.test) + slo;
}
