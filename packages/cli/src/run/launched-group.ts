import { randomBytes } from 'node:crypto';
import { type LaunchedServer, RoundShuffler, stopServers } from '@redis-benchdb/engine';
import type { ResultV1 } from '@redis-benchdb/result';
import {
  checkMemoryBudget,
  checkServerMemory,
  type GroupMember,
  type LaunchFlags,
  type LaunchMember,
  measureGroupDrift,
  pinClient,
  planCells,
  planLaunches,
  type RunPlan,
  type RunRequest,
  redactionNote,
  runGroupCells,
  startMember,
} from '@redis-benchdb/runner';
import { VERSION } from '../version.js';
import { printComparison } from './group-comparison.js';
import { groupLines } from './group-lines.js';
import { finishMember } from './group-result.js';
import { prepareSigning } from './signing.js';
import { RunStop } from './stop.js';

const log = (s: string) => process.stderr.write(`${s}\n`);

/**
 * `run --server-bin ...`: plan the group once, start every planned server, then run the tests
 * interleaved: each cell round by round, trial r against every member in round r, in a random
 * order per round (the runner's group-cells.ts). Each member signs and stores its own result, built as a
 * single run's is. Every server is stopped whatever happens; Ctrl-C stops the load and keeps what
 * was measured, marked interrupted.
 */
export async function runLaunchedGroup(runPlan: RunPlan, flags: LaunchFlags & RunRequest): Promise<number> {
  const all = planCells(runPlan);
  // A search picks its own rates step by step, which interleaved rounds cannot share (run --slo is
  // refused with --server-bin for the same reason): a group runs the suite's other cells.
  const planned = { ...all, cells: all.cells.filter((c) => !c.slo) };
  const skipped = all.cells.filter((c) => c.slo).map((c) => c.label);
  if (skipped.length > 0)
    log(`run group: skipping ${skipped.join(', ')}: searches run on one server (run without --server-bin)`);
  checkMemoryBudget(planned, flags);
  const plan = await planLaunches(flags);
  const redacted = redactionNote(plan.redactions);
  if (redacted) log(`run group: ${redacted}`);
  const signing = await prepareSigning(flags, log);
  const size = plan.members.length;
  const clientWarnings = flags.clientCpus ? await pinClient(flags.clientCpus, log) : [];
  log(
    `run group ${plan.groupId}: ${size} launch${size > 1 ? 'es' : ''}${plan.varies.length ? ` (varies: ${plan.varies.join(', ')})` : ''}, all running at once; each cell's trials are interleaved round by round`,
  );

  const stop = new RunStop(log);
  stop.install();
  const servers: LaunchedServer[] = [];
  const members: GroupMember<LaunchMember>[] = [];
  const docs: { label: string; doc: ResultV1 }[] = [];
  let exitCode = 0;
  try {
    for (const m of plan.members) {
      if (stop.load.aborted) break;
      const started = await startMember(
        m,
        { size, serverCpus: plan.serverCpus },
        {
          clientWarnings,
          cloudMetadata: flags.cloudMetadata === true,
          markAs: `redis-benchdb ${VERSION}`,
          log,
        },
      );
      if (started.server) servers.push(started.server);
      if (started.member) members.push(started.member);
      else exitCode = 1;
    }
    // Before any key is written: every member holds the keys the plan writes, all at once.
    await checkServerMemory(
      members.map((m) => m.session),
      planned,
      flags,
      log,
    );
    // A fresh seed per group: the orders are drawn at random, and recorded in runGroup.schedule.
    const cellOptions = {
      signal: stop.load,
      report: groupLines({ quiet: flags.quiet === true, text: !flags.json && !flags.csv }),
      shuffler: new RoundShuffler(randomBytes(4).readUInt32LE(0)),
    };
    const schedule = await runGroupCells(members, planned, cellOptions);
    await measureGroupDrift(members, planned, cellOptions);
    for (const [i, member] of members.entries()) {
      const finished = await finishMember(member, {
        flags,
        planned,
        signing,
        stop,
        runGroup: {
          id: plan.groupId,
          index: member.plan.index,
          size,
          label: member.plan.label,
          varies: plan.varies,
          schedule,
        },
        first: i === 0,
      });
      if (finished.doc) docs.push({ label: member.plan.label, doc: finished.doc });
      exitCode = Math.max(exitCode, finished.code);
    }
  } finally {
    stop.uninstall();
    await Promise.allSettled(members.map((m) => m.session.close()));
    await stopServers(servers);
  }
  printComparison(plan.groupId, docs, flags.json || flags.csv ? process.stderr : process.stdout);
  if (stop.interrupted)
    log(
      `interrupted: ${docs.length} of ${size} results kept, marked interrupted; every launched server is stopped`,
    );
  return stop.interrupted ? stop.exitCode : exitCode;
}
