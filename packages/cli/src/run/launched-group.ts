import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  BenchSession,
  DEFAULT_TARGET,
  type LaunchedServer,
  type Pinning,
  pinProcess,
  RoundShuffler,
  startServer,
  stopServers,
  type Target,
} from '@redis-benchdb/engine';
import { ioThreadsOverCpus, type ResultV1, type Warning } from '@redis-benchdb/result';
import {
  checkMemoryBudget,
  checkServerMemory,
  collectEnvironment,
  type GroupMember,
  measureGroupDrift,
  planCells,
  type RunPlan,
  type RunRequest,
  redactionNote,
  runGroupCells,
} from '@redis-benchdb/runner';
import { VERSION } from '../version.js';
import { printComparison } from './group-comparison.js';
import { groupLines } from './group-lines.js';
import { finishMember } from './group-result.js';
import { type LaunchFlags, type LaunchMember, type LaunchPlan, planLaunches } from './launch-plan.js';
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
      const started = await startMember(m, plan, clientWarnings, flags.cloudMetadata === true);
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

/**
 * Start one planned server, pin it, open a session on it and describe its environment. A server
 * that does not start (a config line it refuses) costs only its own member: it is reported and
 * skipped. The server, when it started, is returned even if the rest failed, so it gets stopped.
 */
async function startMember(
  m: LaunchMember,
  plan: LaunchPlan,
  clientWarnings: Warning[],
  cloudMetadata: boolean,
): Promise<{ server: LaunchedServer | null; member: GroupMember<LaunchMember> | null }> {
  const tag = `[${m.index + 1}/${plan.members.length}]`;
  const skip = (err: Error) => {
    log(`error: ${tag} ${m.label}: ${err.message}\n(skipped; the other launches go on)`);
    return null;
  };
  const server = await startServer({
    bin: m.bin,
    config: m.config,
    unixSocketInDir: m.transport === 'unix',
  }).catch(skip);
  if (!server) return { server: null, member: null };
  const warnings = [...clientWarnings];
  let pinned = '';
  if (plan.serverCpus !== null) {
    // Every member on the same CPUs: what else runs there weighs on each alike.
    const pin = await pinProcess(server.pid, plan.serverCpus);
    pinned = pin.applied ? `, pinned to CPU ${pin.applied}` : `, NOT pinned (${pin.error})`;
    if (!pin.applied) warnings.push(notPinned('--server-cpus', pin));
  }
  const target: Target = {
    ...DEFAULT_TARGET,
    host: '127.0.0.1',
    port: server.port,
    ...(m.transport === 'unix' ? { socket: server.unixSocket! } : {}),
  };
  const where = target.socket ? `unix:${target.socket}` : `127.0.0.1:${server.port}`;
  const startedAt = new Date();
  try {
    const session = await BenchSession.open(target);
    log(
      `${tag} ${m.label}: started ${path.basename(server.bin)} ${server.version} (pid ${server.pid}) on ${where}${pinned}; keys under ${session.prefix}*`,
    );
    try {
      // As a single run does: should this process be killed, `cleanup` finds the run's keys by it.
      await session
        .markStart(`redis-benchdb ${VERSION}`)
        .catch((err: Error) =>
          log(
            `warning: ${tag} could not mark ${session.prefix} as this run's (${err.message}): if this run is killed, \`cleanup\` will not find its keys`,
          ),
        );
      const environment = await collectEnvironment(session, target, { cloudMetadata });
      // Said now, not only at the end: every figure of this member will carry it (environmentWarnings).
      const crowded = ioThreadsOverCpus(environment.server.ioThreads, environment.client.numa.serverCpus);
      if (crowded) log(`warning: ${tag} ${crowded.message}`);
      return {
        server,
        member: {
          plan: m,
          tag,
          target,
          session,
          environment,
          warnings,
          startedAt,
          serverPid: server.pid,
          summaries: [],
          drift: null,
          failure: null,
          stopped: false,
        },
      };
    } catch (err) {
      await session.close();
      throw err;
    }
  } catch (err) {
    skip(err as Error);
    return { server, member: null };
  }
}

/** Pin this process (and the worker threads it will start) for a run; a failure is reported, not fatal. */
export async function pinClient(cpus: string, say: (s: string) => void): Promise<Warning[]> {
  const pin = await pinProcess(process.pid, cpus);
  if (pin.applied) {
    say(`redis-benchdb pinned to CPU ${pin.applied} (--client-cpus)`);
    return [];
  }
  say(`warning: --client-cpus ${cpus} NOT applied: ${pin.error}; the client runs on any CPU`);
  return [notPinned('--client-cpus', pin)];
}

function notPinned(flag: string, pin: Pinning): Warning {
  const who = flag === '--server-cpus' ? 'server' : 'client';
  return {
    code: 'NOT_PINNED',
    message: `${flag} ${pin.requested} was asked for but not applied (${pin.error}): the ${who} ran on any CPU, so client and server may have shared one.`,
    cell: null,
  };
}
