import { randomBytes } from 'node:crypto';
import { type LaunchedServer, RoundShuffler, stopServers } from '@redis-benchdb/engine';
import type { ResultV1 } from '@redis-benchdb/result';
import { type PlannedCells, planCells } from './cells.js';
import {
  type GroupCellsReport,
  type GroupMember,
  type GroupSchedule,
  measureGroupDrift,
  runGroupCells,
} from './group-cells.js';
import { pinClient, startMember } from './launch.js';
import { type LaunchFlags, type LaunchMember, type LaunchPlan, planLaunches } from './launch-plan.js';
import { type CleanupOutcome, removeRunKeys } from './leftovers.js';
import { checkMemoryBudget, checkServerMemory } from './memory-budget.js';
import type { RunPlan, RunRequest } from './request.js';
import { buildResultDocument } from './result-document.js';
import { redactionNote, scrubAndTell } from './scrub.js';
import { stopSignals } from './single-run.js';

/** What a launched group reads beyond its run plan. */
export interface GroupRunOptions {
  /** The run's flags: the servers to launch (--server-bin, --config...), memory budget, --client-cpus... */
  request: LaunchFlags & RunRequest;
  /** Each result's runner.version, and what each member's marker says ran it. */
  runnerVersion: string;
  /** Aborted to stop the load: no further server starts, and what was measured is kept, marked interrupted. */
  signal?: AbortSignal;
  /** Aborted to stop removing the members' keys. */
  cleanupSignal?: AbortSignal;
}

/** One member's end: its result (unsigned) and its cleanup. */
export interface MemberResult {
  member: GroupMember<LaunchMember>;
  doc: ResultV1;
  cleanup: CleanupOutcome;
  /** The first member to finish. */
  first: boolean;
}

/** What a group tells as it goes, for the caller to show: the runner prints nothing. */
export interface GroupRunReport {
  /** The lines said whatever the output (a cell skipped, a server that did not start...). */
  log(line: string): void;
  cells: GroupCellsReport;
  /** The plans passed their checks and no server is started yet: the caller's own checks; a throw stops the run. */
  checked?(): Promise<void> | void;
  /** The servers are about to start: from here until the call returns, `signal` stops the run. */
  stoppable?(): void;
  /** A member's result, once its keys are removed; awaited before the next member's keys go. */
  finished?(result: MemberResult): Promise<void> | void;
}

/** What a group returns: every member's result, in order, unsigned. */
export interface GroupRunResult {
  groupId: string;
  /** The servers planned. */
  size: number;
  docs: { label: string; doc: ResultV1 }[];
  /** Planned servers that did not start (each told to the report's log). */
  notStarted: number;
}

/**
 * A run against a group of servers the runner launches (`run --server-bin ...`): plan the group
 * once, start every planned server, then run the cells interleaved, each round by round in a random
 * order per round (group-cells.ts), and build each member's result as a single run's is. Every
 * server is stopped and every session closed before it returns, whatever happens.
 */
export async function runGroup(
  runPlan: RunPlan,
  options: GroupRunOptions,
  report: GroupRunReport,
): Promise<GroupRunResult> {
  const { request, runnerVersion } = options;
  const { signal, cleanupSignal } = stopSignals(options);
  const log = report.log;
  const planned = groupCells(runPlan, log);
  checkMemoryBudget(planned, request);
  const plan = await planLaunches(request);
  const redacted = redactionNote(plan.redactions);
  if (redacted) log(`run group: ${redacted}`);
  await report.checked?.();
  const size = plan.members.length;
  const clientWarnings = request.clientCpus ? await pinClient(request.clientCpus, log) : [];
  log(
    `run group ${plan.groupId}: ${size} launch${size > 1 ? 'es' : ''}${plan.varies.length ? ` (varies: ${plan.varies.join(', ')})` : ''}, all running at once; each cell's trials are interleaved round by round`,
  );
  report.stoppable?.();

  const servers: LaunchedServer[] = [];
  const members: GroupMember<LaunchMember>[] = [];
  const docs: { label: string; doc: ResultV1 }[] = [];
  let notStarted = 0;
  try {
    for (const m of plan.members) {
      if (signal.aborted) break;
      const started = await startMember(
        m,
        { size, serverCpus: plan.serverCpus },
        {
          clientWarnings,
          cloudMetadata: request.cloudMetadata === true,
          markAs: `redis-benchdb ${runnerVersion}`,
          log,
        },
      );
      if (started.server) servers.push(started.server);
      if (started.member) members.push(started.member);
      else notStarted++;
    }
    // Before any key is written: every member holds the keys the plan writes, all at once.
    await checkServerMemory(
      members.map((m) => m.session),
      planned,
      request,
      log,
    );
    // A fresh seed per group: the orders are drawn at random, and recorded in runGroup.schedule.
    const cellOptions = {
      signal,
      report: report.cells,
      shuffler: new RoundShuffler(randomBytes(4).readUInt32LE(0)),
    };
    const schedule = await runGroupCells(members, planned, cellOptions);
    await measureGroupDrift(members, planned, cellOptions);
    for (const [i, member] of members.entries()) {
      const ended = { plan, planned, schedule, signal, cleanupSignal, runnerVersion };
      const result = await endMember(member, ended, log);
      await report.finished?.({ ...result, member, first: i === 0 });
      docs.push({ label: member.plan.label, doc: result.doc });
    }
  } finally {
    await Promise.allSettled(members.map((m) => m.session.close()));
    await stopServers(servers);
  }
  return { groupId: plan.groupId, size, docs, notStarted };
}

/**
 * The cells a group runs: a search picks its own rates step by step, which interleaved rounds cannot
 * share (run --slo is refused with --server-bin for the same reason), so a group runs the others.
 */
function groupCells(runPlan: RunPlan, log: (s: string) => void): PlannedCells {
  const all = planCells(runPlan);
  const skipped = all.cells.filter((c) => c.slo).map((c) => c.label);
  if (skipped.length > 0)
    log(`run group: skipping ${skipped.join(', ')}: searches run on one server (run without --server-bin)`);
  return { ...all, cells: all.cells.filter((c) => !c.slo) };
}

/**
 * A member's end, as a single run's: remove its keys and build its result with the same
 * buildResultDocument, plus the group block.
 */
async function endMember(
  m: GroupMember<LaunchMember>,
  group: {
    plan: LaunchPlan;
    planned: PlannedCells;
    schedule: GroupSchedule;
    signal: AbortSignal;
    cleanupSignal: AbortSignal;
    runnerVersion: string;
  },
  log: (s: string) => void,
): Promise<{ doc: ResultV1; cleanup: CleanupOutcome }> {
  const { plan, planned } = group;
  // Read before the cleanup: a signal that comes during it stops the cleanup, not this member's load.
  const interrupted = group.signal.aborted;
  // Keys left on a server the group launched go with it.
  const cleanup = await removeRunKeys(m.session, group.cleanupSignal, launchedHint);
  const doc = scrubAndTell(
    buildResultDocument({
      runnerVersion: group.runnerVersion,
      suite: planned.suite,
      target: m.target,
      keyPrefix: m.session.prefix,
      environment: m.environment,
      cells: m.summaries,
      startedAt: m.startedAt,
      finishedAt: new Date(),
      interrupted,
      plannedCells: planned.cells.length,
      error: m.failure,
      cleanup,
      runGroup: {
        id: plan.groupId,
        index: m.plan.index,
        size: plan.members.length,
        label: m.plan.label,
        varies: plan.varies,
        schedule: group.schedule,
      },
      extraWarnings: m.warnings,
      driftCheck: m.drift,
      cluster: null,
    }),
    (note) => log(`${m.tag} ${note}`),
  );
  return { doc, cleanup };
}

/** Keys left on a server the run launched (a throwaway, or a group member) go with it. */
export const launchedHint = (): string => 'the throwaway server is stopped with them';
