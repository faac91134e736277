import { BenchSession, type LaunchedServer, type Target } from '@redis-benchdb/engine';
import type { ResultV1 } from '@redis-benchdb/result';
import { type PlannedCells, planCells } from './cells.js';
import { collectEnvironment } from './environment.js';
import { pinClient } from './launch.js';
import { type CleanupOutcome, type EarlierRuns, earlierRuns, removeRunKeys } from './leftovers.js';
import { isListening, startThrowawayServer } from './local-server.js';
import { checkMemoryBudget, checkServerMemory } from './memory-budget.js';
import type { RunPlan, RunRequest } from './request.js';
import { buildResultDocument, type MeasuredCell } from './result-document.js';
import { checkRunDrift, type RunCellsReport, runCells } from './run-cells.js';
import { scrubAndTell } from './scrub.js';

/** What a single run reads beyond its plan. */
export interface SingleRunOptions {
  /** The run's flags: memory budget, --no-launch, --cloud-metadata, --client-cpus... */
  request: RunRequest;
  /** The result's runner.version, and what the run's marker says ran it. */
  runnerVersion: string;
  /** Aborted to stop the load: the run then removes its keys and returns its result, marked interrupted. */
  signal?: AbortSignal;
  /** Aborted to stop removing the run's keys (the result then says how many are left). */
  cleanupSignal?: AbortSignal;
}

/** What the run said about its server and its plan, once the environment is read. */
export interface RunDescription {
  planned: PlannedCells;
  environment: Awaited<ReturnType<typeof collectEnvironment>>;
  keyPrefix: string;
  cluster: BenchSession['cluster'];
}

/**
 * What a single run tells as it goes, for the caller to show: the runner prints nothing. `log` takes
 * the lines said whatever the output (a server started, a refusal to mark the keys); the other calls
 * are the caller's to show or not.
 */
export interface SingleRunReport {
  log(line: string): void;
  cells: RunCellsReport;
  /** How to remove keys the run could not remove from `target` (`launched`: a throwaway server, stopped with them). */
  leftoverHint(target: Target, launched: boolean): (prefix: string) => string;
  /** The plan passed its checks and no server is touched yet: the caller's own checks go here; a throw stops the run. */
  checked?(): Promise<void> | void;
  /** The server is up (started if need be): from here until the call returns, `signal` stops the run. */
  stoppable?(): void;
  /** What earlier runs left on the server (never called for a throwaway server, which is new). */
  earlierRuns?(target: Target, found: EarlierRuns): void;
  describing?(): void;
  described?(run: RunDescription): void;
  /** What the run spent writing keys for its read cells, and its whole length so far. */
  preloadCost?(keys: number, seconds: number, totalSec: number): void;
}

/** What a single run returns: its result, unsigned, and what went into it. */
export interface SingleRunResult {
  doc: ResultV1;
  cleanup: CleanupOutcome;
  /** A cell that threw, which ended the run (its result is marked incomplete). */
  failure: string | null;
  summaries: MeasuredCell[];
  keyPrefix: string;
}

/**
 * A run on one server: plan and check its cells, connect (or start a throwaway redis-server when the
 * plan names no server and nothing answers), describe the environment, run every trial, measure the
 * drift, remove the run's keys and build the result document. Every server it started is stopped
 * and its session closed before it returns.
 */
export async function runSingle(
  plan: RunPlan,
  options: SingleRunOptions,
  report: SingleRunReport,
): Promise<SingleRunResult> {
  const { request, runnerVersion } = options;
  const { signal, cleanupSignal } = stopSignals(options);
  const log = report.log;
  const extraWarnings = request.clientCpus ? await pinClient(request.clientCpus, log) : [];
  const planned = planCells(plan);
  checkMemoryBudget(planned, request);
  await report.checked?.();
  const launched = await launchIfNothingAnswers(plan, request, log);
  report.stoppable?.();

  let session: BenchSession | null = null;
  let cleanedUp = false;
  const hint = () => report.leftoverHint(plan.target, launched !== null);
  try {
    session = await BenchSession.open(plan.target);
    // Refused before the marker: nothing of the run is on the server yet, so nothing to clean up.
    await checkServerMemory(session, planned, request, log).catch((err) => {
      cleanedUp = true;
      throw err;
    });
    await markSession(session, plan.target, launched, runnerVersion, report);
    const startedAt = new Date();
    report.describing?.();
    const environment = await collectEnvironment(session, plan.target, {
      cloudMetadata: request.cloudMetadata === true,
    });
    report.described?.({ planned, environment, keyPrefix: session.prefix, cluster: session.cluster });
    const cellsRun = { signal, report: report.cells };
    const { summaries, failure } = await runCells(session, planned, environment.server.local, cellsRun);
    const drift = await checkRunDrift(session, planned, { summaries, failure }, cellsRun);
    const { keys, seconds } = session.preloadCost;
    if (keys > 0) report.preloadCost?.(keys, seconds, (Date.now() - startedAt.getTime()) / 1000);

    cleanedUp = true;
    const cleanup = await removeRunKeys(session, cleanupSignal, hint());
    if (cleanup.error) log(cleanup.error);
    const doc = scrubAndTell(
      buildResultDocument({
        runnerVersion,
        suite: planned.suite,
        target: plan.target,
        keyPrefix: session.prefix,
        environment,
        cells: summaries,
        startedAt,
        finishedAt: new Date(),
        interrupted: signal.aborted,
        plannedCells: planned.cells.length,
        error: failure,
        cleanup,
        extraWarnings,
        driftCheck: drift,
        cluster: session.cluster?.topology ?? null,
      }),
      log,
    );
    return { doc, cleanup, failure, summaries, keyPrefix: session.prefix };
  } catch (err) {
    // The run failed outside a cell (the server's INFO, a reply past the limits): its keys go all the same.
    if (session && !cleanedUp) {
      const cleanup = await removeRunKeys(session, cleanupSignal, hint());
      log(cleanup.error ?? removedLine(cleanup.removedKeys ?? 0, session.prefix));
    }
    throw err;
  } finally {
    await session?.close();
    await launched?.stop();
  }
}

/** A run's two signals, each one that never aborts when the caller gives none. */
export function stopSignals(o: { signal?: AbortSignal; cleanupSignal?: AbortSignal }) {
  const never = () => new AbortController().signal;
  return { signal: o.signal ?? never(), cleanupSignal: o.cleanupSignal ?? never() };
}

/** The line that says the run's keys are gone. */
export function removedLine(removedKeys: number, prefix: string): string {
  return `removed ${removedKeys} key${removedKeys === 1 ? '' : 's'} under ${prefix}*`;
}

/** A throwaway redis-server when the user named no server and nothing answers on the default one. */
async function launchIfNothingAnswers(
  plan: RunPlan,
  request: RunRequest,
  log: (s: string) => void,
): Promise<LaunchedServer | null> {
  if (
    !plan.targetIsDefault ||
    request.launch === false ||
    (await isListening(plan.target.host, plan.target.port))
  )
    return null;
  const launched = await startThrowawayServer();
  plan.target.port = launched.port;
  log(
    `nothing answers on 127.0.0.1:6379: started a throwaway redis-server ${launched.version} on 127.0.0.1:${launched.port} for this run (stopped at the end; --no-launch to fail instead)`,
  );
  return launched;
}

/** What earlier runs left on the server, told; and this run's keys, marked as its own. */
async function markSession(
  session: BenchSession,
  target: Target,
  launched: LaunchedServer | null,
  runnerVersion: string,
  report: SingleRunReport,
): Promise<void> {
  // A throwaway server is new: nothing earlier can be on it.
  if (!launched) {
    const found = await earlierRuns(session);
    if (found) report.earlierRuns?.(target, found);
  }
  await session.markStart(`redis-benchdb ${runnerVersion}`).catch((err: Error) =>
    // An ACL may refuse HSET or PSETEX: the run goes on, but a killed run's keys are then unmarked.
    report.log(
      `warning: could not mark ${session.prefix} as this run's (${err.message}): if this run is killed, \`cleanup\` will not find its keys`,
    ),
  );
}
