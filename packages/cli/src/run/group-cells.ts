import {
  type BenchSession,
  type RoundShuffler,
  runInterleavedCell,
  summarizeCell,
  type Target,
} from '@redis-benchdb/engine';
import type { DriftFigures } from '@redis-benchdb/probe';
import type { ResultV1, Warning } from '@redis-benchdb/result';
import {
  CellInterference,
  type collectEnvironment,
  driftCellIndex,
  driftFrom,
  type MeasuredCell,
  type PlannedCells,
  wantsDriftCheck,
} from '@redis-benchdb/runner';
import { textLine } from './format.js';
import type { LaunchMember } from './launch-plan.js';
import { Progress } from './progress.js';

export type GroupSchedule = NonNullable<NonNullable<ResultV1['runGroup']>['schedule']>;

/** One launched server of a group while it runs: its session, and what it measured so far. */
export interface GroupMember {
  plan: LaunchMember;
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

export interface GroupCellsOptions {
  signal: AbortSignal;
  shuffler: RoundShuffler;
  /** Text mode: print each member's line per cell as it completes (CSV and JSON print at the end). */
  text: boolean;
  quiet: boolean;
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
  if (members.length > 0 && opts.text)
    process.stderr.write(
      `redis-benchdb: ${cells.length} cell${cells.length > 1 ? 's' : ''}${trials > 1 ? `, ${trials} trials each` : ''}, interleaved over ${members.length} server${members.length > 1 ? 's' : ''}\n`,
    );
  const progress = new Progress();
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
        onProgress: (member, round, done, requested, elapsed) =>
          progress.update(
            `${byIndex.get(member)!.tag} ${cell.label}${trials > 1 ? ` (round ${round}/${trials})` : ''}`,
            i,
            cells.length,
            done,
            requested,
            elapsed,
            cell.options.durationSec ?? null,
          ),
      },
    );
    progress.clear();
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
      if (opts.text) process.stdout.write(`${m.tag} ${textLine(summary, opts.quiet)}\n`);
      if (summary.incomplete && !opts.signal.aborted) m.stopped = true;
    }
  }
  return schedule;
}

/**
 * The drift check of a group, as a single run's (the runner's drift.ts): when every member ran every cell,
 * one cell (driftCellIndex) once more on every member, interleaved like the cells (so a change of the machine
 * weighs on each alike), each member's repeat compared with its own first measurement. Its rounds
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
  if (opts.text)
    process.stderr.write(`measuring ${cell.label} again on every server to check for drift...\n`);
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
