import {
  type BenchSession,
  type RoundShuffler,
  runInterleavedCell,
  summarizeCell,
  type Target,
} from '@redis-benchdb/engine';
import type { DriftFigures } from '@redis-benchdb/probe';
import type { ResultV1, Warning } from '@redis-benchdb/result';
import type { PlannedCells } from './cells.js';
import { driftCellIndex, driftFrom, wantsDriftCheck } from './drift.js';
import type { collectEnvironment } from './environment.js';
import { CellInterference } from './interference.js';
import type { MeasuredCell } from './result-document.js';

export type GroupSchedule = NonNullable<NonNullable<ResultV1['runGroup']>['schedule']>;

/**
 * One launched server of a group while it runs: its session, and what it measured so far. `plan` is
 * what was launched (the CLI's launch plan member); `index` is its place in the group.
 */
export interface GroupMember<Plan extends { index: number } = { index: number }> {
  plan: Plan;
  /** `[2/4]`: how its lines are told apart. */
  tag: string;
  target: Target;
  session: BenchSession;
  environment: Awaited<ReturnType<typeof collectEnvironment>>;
  /** NOT_PINNED warnings, for the result. */
  warnings: Warning[];
  startedAt: Date;
  /** Its launched server's pid, for the interference sampler. */
  serverPid: number;
  summaries: MeasuredCell[];
  /** The drift cell (driftCellIndex) measured again at the end, when it was (see measureGroupDrift). */
  drift: DriftFigures | null;
  /** A cell that threw: `label: message`. */
  failure: string | null;
  /** It ran an incomplete cell or one that threw: as a single run would, it runs no further cell. */
  stopped: boolean;
}

/** A member's progress within a cell, as the engine reports it (onProgress). */
export interface GroupProgress {
  member: GroupMember;
  cell: string;
  cellIndex: number;
  cells: number;
  /** The round running, of `trials`. */
  round: number;
  trials: number;
  completed: number;
  requested: number | null;
  elapsedSec: number;
  durationSec: number | null;
}

/** What a group's run tells as it goes, for the caller to show: the runner prints nothing. */
export interface GroupCellsReport {
  /** The cells are about to run, interleaved over `servers` members. */
  starting(cells: number, trials: number, servers: number): void;
  progress(p: GroupProgress): void;
  /** A cell ended on every member it ran on. */
  cellEnded(): void;
  /** A member's cell, summarised over its trials. */
  measured(member: GroupMember, summary: MeasuredCell): void;
  /** The drift cell is about to run again on every member that ran every cell. */
  measuringDrift(cell: string): void;
}

export interface GroupCellsOptions {
  signal: AbortSignal;
  shuffler: RoundShuffler;
  report: GroupCellsReport;
}

/**
 * Every planned cell, interleaved over the members still running: a member stops after a cell that
 * threw or came back incomplete, exactly where a single run of it would have stopped. Returns the
 * order every round ran in, for each member's runGroup.schedule.
 */
export async function runGroupCells(
  members: GroupMember[],
  planned: PlannedCells,
  opts: GroupCellsOptions,
): Promise<GroupSchedule> {
  const schedule: GroupSchedule = [];
  const { cells, trials } = planned;
  if (members.length > 0) opts.report.starting(cells.length, trials, members.length);
  const byIndex = new Map(members.map((m) => [m.plan.index, m]));
  for (const [i, cell] of cells.entries()) {
    if (opts.signal.aborted) break;
    const active = members.filter((m) => !m.stopped);
    if (active.length === 0) break;
    // Each member's sampler watches its own server's pid over its own trials' measured phases.
    const interference = new Map(active.map((m) => [m.plan.index, new CellInterference(m.serverPid)]));
    const ran = await runInterleavedCell(
      active.map((m) => ({ index: m.plan.index, session: m.session })),
      cell.options,
      trials,
      opts.shuffler,
      {
        signal: opts.signal,
        measureHooks: (member) => interference.get(member)!.hooks,
        onProgress: (member, round, completed, requested, elapsedSec) =>
          opts.report.progress({
            member: byIndex.get(member)!,
            cell: cell.label,
            cellIndex: i,
            cells: cells.length,
            round,
            trials,
            completed,
            requested,
            elapsedSec,
            durationSec: cell.options.durationSec ?? null,
          }),
      },
    );
    opts.report.cellEnded();
    for (const r of ran.rounds) schedule.push({ cell: i, round: r.round, order: r.order });
    for (const m of active) {
      const failure = ran.failures.get(m.plan.index);
      if (failure) {
        m.failure = `${cell.label}: ${failure}`;
        m.stopped = true;
      }
      const results = ran.trials.get(m.plan.index) ?? [];
      if (results.length === 0) continue;
      const summary = {
        ...summarizeCell(cell.label, results),
        interference: interference.get(m.plan.index)!.summary(),
      };
      m.summaries.push(summary);
      opts.report.measured(m, summary);
      if (summary.incomplete && !opts.signal.aborted) m.stopped = true;
    }
  }
  return schedule;
}

/**
 * The drift check of a group, as a single run's (drift.ts): when every member ran every cell, one
 * cell (driftCellIndex) once more on every member, interleaved like the cells (so a change of the
 * machine weighs on each alike), each member's repeat compared with its own first measurement. Its rounds
 * are not added to runGroup.schedule, which lists the cells' rounds only.
 */
export async function measureGroupDrift(
  members: GroupMember[],
  planned: PlannedCells,
  opts: GroupCellsOptions,
): Promise<void> {
  const { cells, trials } = planned;
  const complete = members.filter((m) => !m.stopped && !m.failure && m.summaries.length === cells.length);
  if (opts.signal.aborted || complete.length === 0 || !wantsDriftCheck(planned.suite !== null, cells.length))
    return;
  const at = driftCellIndex(cells);
  const cell = cells[at];
  if (!cell) return;
  opts.report.measuringDrift(cell.label);
  const ran = await runInterleavedCell(
    complete.map((m) => ({ index: m.plan.index, session: m.session })),
    cell.options,
    trials,
    opts.shuffler,
    { signal: opts.signal },
  ).catch(() => null);
  if (!ran) return;
  for (const m of complete) {
    if (ran.failures.has(m.plan.index)) continue;
    m.drift = driftFrom(cell.label, m.summaries[at]!, ran.trials.get(m.plan.index) ?? []);
  }
}
