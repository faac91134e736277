import { BenchSession, type LaunchedServer } from '@redis-benchdb/engine';
import type { ResultV1 } from '@redis-benchdb/result';
import { compileSchemas } from '@redis-benchdb/result';
import {
  buildResultDocument,
  type CleanupOutcome,
  checkMemoryBudget,
  checkRunDrift,
  checkServerMemory,
  collectEnvironment,
  isErrorDominated,
  isListening,
  type MeasuredCell,
  type PlannedCells,
  pinClient,
  planCells,
  type Redactions,
  type RunPlan,
  type RunRequest,
  redactionNote,
  removeRunKeys,
  runCells,
  SUITE_ID,
  scrubResult,
  startThrowawayServer,
} from '@redis-benchdb/runner';
import { writeAtomically } from '../atomic-write.js';
import type { SigningKey } from '../signing-key.js';
import { VERSION } from '../version.js';
import { cellLines } from './cell-lines.js';
import { describeCluster } from './cluster.js';
import { CSV_HEADER } from './format.js';
import { keepAndSubmit, signOwnResult, verifyHint } from './keep.js';
import { leftoverHint, mentionLeftovers } from './leftover-lines.js';
import { prepareSigning, type SubmitTarget } from './signing.js';
import { RunStop } from './stop.js';
import { reportWrongReplies, warningLines } from './warning-lines.js';

const PRODUCT_NAMES: Record<string, string> = {
  redis: 'Redis',
  valkey: 'Valkey',
  keydb: 'KeyDB',
  dragonfly: 'Dragonfly',
};

type Log = (s: string) => void;

/** What the steps of one run share. */
interface Run {
  plan: RunPlan;
  flags: RunRequest;
  log: Log;
  mode: 'json' | 'csv' | 'text';
  planned: PlannedCells;
  stop: RunStop;
  session: BenchSession;
  launched: LaunchedServer | null;
}

/** `redis-benchdb run` on one server: connect (or start a throwaway one), probe, run every trial, clean up, print, sign. */
export async function runOnce(plan: RunPlan, flags: RunRequest): Promise<number> {
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const extraWarnings = flags.clientCpus ? await pinClient(flags.clientCpus, log) : [];
  const mode = flags.json ? 'json' : flags.csv ? 'csv' : 'text';

  const planned = planCells(plan);
  checkMemoryBudget(planned, flags);
  const { key, submit } = await prepareSigning(flags, log);
  // Paid now, not after a stall, when the run has --timeout plus a margin to end in.
  compileSchemas();
  const launched = await launchIfNothingAnswers(plan, flags, log);

  const stop = new RunStop(log);
  stop.install();

  let session: BenchSession | null = null;
  let cleanedUp = false;
  try {
    session = await BenchSession.open(plan.target);
    // Refused before the marker: nothing of the run is on the server yet, so nothing to clean up.
    await checkServerMemory(session, planned, flags, log).catch((err) => {
      cleanedUp = true;
      throw err;
    });
    await markSession(session, plan, launched, log);
    const run: Run = { plan, flags, log, mode, planned, stop, session, launched };
    const startedAt = new Date();
    const environment = await describeRun(run);
    const cellsRun = { signal: stop.load, report: cellLines(mode, flags.quiet === true, log) };
    const { summaries, failure } = await runCells(session, planned, environment.server.local, cellsRun);
    const drift = await checkRunDrift(session, planned, { summaries, failure }, cellsRun);
    if (mode === 'text') logPreloadCost(session, startedAt, log);

    cleanedUp = true;
    const cleanup = await removeRunKeys(session, stop.cleanup, leftoverHint(plan.target, launched));
    if (cleanup.error) log(cleanup.error);
    const said: Redactions = new Set();
    const doc = scrubResult(
      buildResultDocument({
        runnerVersion: VERSION,
        suite: planned.suite,
        target: plan.target,
        keyPrefix: session.prefix,
        environment,
        cells: summaries,
        startedAt,
        finishedAt: new Date(),
        interrupted: stop.interrupted,
        plannedCells: planned.cells.length,
        error: failure,
        cleanup,
        extraWarnings,
        driftCheck: drift,
        cluster: session.cluster?.topology ?? null,
      }),
      said,
    );
    const note = redactionNote(said);
    if (note) log(note);
    const kept = await signAndKeep(run, doc, key, submit);
    return report(run, { doc, cleanup, kept, failure, summaries, key });
  } catch (err) {
    // The run failed outside a cell (the server's INFO, a reply past the limits): its keys go all the same.
    if (session && !cleanedUp) {
      const cleanup = await removeRunKeys(session, stop.cleanup, leftoverHint(plan.target, launched));
      log(
        cleanup.error ??
          `removed ${cleanup.removedKeys} key${cleanup.removedKeys === 1 ? '' : 's'} under ${session.prefix}*`,
      );
    }
    throw err;
  } finally {
    stop.uninstall();
    await session?.close();
    await launched?.stop();
  }
}

/** What the run spent writing keys for its read cells: most of a short run of the suite (issue 41). */
function logPreloadCost(session: BenchSession, startedAt: Date, log: Log): void {
  const { keys, seconds } = session.preloadCost;
  const total = (Date.now() - startedAt.getTime()) / 1000;
  if (keys === 0) return;
  log(
    `the run took ${total.toFixed(1)} s, ${seconds.toFixed(1)} s of it writing ${keys.toLocaleString('en-US')} keys for the GET cells to read (unmeasured, and the same however short the cells are)`,
  );
}

/** A throwaway redis-server when the user named no server and nothing answers on the default one. */
async function launchIfNothingAnswers(
  plan: RunPlan,
  flags: RunRequest,
  log: Log,
): Promise<LaunchedServer | null> {
  if (
    !plan.targetIsDefault ||
    flags.launch === false ||
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

/** What earlier runs left on the server, mentioned; and this run's keys, marked as its own. */
async function markSession(
  session: BenchSession,
  plan: RunPlan,
  launched: LaunchedServer | null,
  log: Log,
): Promise<void> {
  // A throwaway server is new: nothing earlier can be on it.
  if (!launched) await mentionLeftovers(session, plan.target, log);
  await session.markStart(`redis-benchdb ${VERSION}`).catch((err: Error) =>
    // An ACL may refuse HSET or PSETEX: the run goes on, but a killed run's keys are then unmarked.
    log(
      `warning: could not mark ${session.prefix} as this run's (${err.message}): if this run is killed, \`cleanup\` will not find its keys`,
    ),
  );
}

/** The machine, the server and the link, and the run's first lines: what it runs against what. */
async function describeRun(run: Run) {
  const { plan, mode, log, session } = run;
  const { cells, trials } = run.planned;
  if (mode === 'text') log('describing the machine, the server and the link...');
  const environment = await collectEnvironment(session, plan.target, {
    cloudMetadata: run.flags.cloudMetadata === true,
  });
  if (mode === 'text') {
    const what = plan.cells
      ? `${cells.length} test${cells.length > 1 ? 's' : ''}`
      : `suite ${SUITE_ID}, profile ${plan.profile} (${cells.length} cells)`;
    const server = environment.server;
    log(
      `redis-benchdb: ${what}${trials > 1 ? `, ${trials} trials each` : ''} against ${describeTarget(plan.target)} (${PRODUCT_NAMES[server.product] ?? server.product} ${server.version ?? '?'}); keys under ${session.prefix}*`,
    );
    if (session.cluster) log(describeCluster(session.cluster.topology));
  }
  if (mode === 'csv') process.stdout.write(`${CSV_HEADER}\n`);
  return environment;
}

/** Sign the document (its one validation), print it with --json, write --out, keep and submit it. */
async function signAndKeep(run: Run, doc: ResultV1, key: SigningKey, submit: SubmitTarget) {
  const signed = signOwnResult(doc, key);
  // What --json prints is what is signed: the document with the key it binds (keyFingerprint).
  if (run.mode === 'json') process.stdout.write(`${JSON.stringify(signed.bound, null, 2)}\n`);
  if (run.flags.out) await writeAtomically(run.flags.out, signed.text);
  return keepAndSubmit(signed, { store: run.flags.store !== false, db: run.flags.db, submit });
}

/** The run's closing lines, and its exit code: 1 when anything kept the result from being whole and kept. */
function report(
  run: Run,
  r: {
    doc: ResultV1;
    cleanup: CleanupOutcome;
    kept: { ok: boolean; lines: string[] };
    failure: string | null;
    summaries: MeasuredCell[];
    key: SigningKey;
  },
): number {
  const { log, mode, stop, flags } = run;
  const { doc, cleanup, failure } = r;
  if (!cleanup.error && mode === 'text')
    log(
      `removed ${cleanup.removedKeys} key${cleanup.removedKeys === 1 ? '' : 's'} under ${run.session.prefix}*`,
    );
  if (mode === 'text') for (const line of warningLines(doc.warnings)) log(line);
  if (flags.out)
    log(`wrote ${flags.out}, signed by ${r.key.fingerprint} (check it with: ${verifyHint(flags.out)})`);
  for (const line of r.kept.lines) log(line);
  if (failure) {
    log(`error: ${failure} (the cells before it are kept; the run is marked incomplete)`);
    return 1;
  }
  const failed = doc.cells.find((c) => c.incomplete && c.error);
  if (failed && !stop.interrupted)
    log(`error: ${failed.label}: ${failed.error}. The result is partial and marked incomplete.`);
  const erroring = flags.allowErrors ? [] : r.summaries.filter(isErrorDominated);
  if (erroring.length > 0)
    log(
      `error: most replies were errors in ${erroring.map((c) => c.label).join(', ')} (warning ERRORS); the result is kept with the warning. Remove the cause (the server's error says it), or pass --allow-errors if the errors are what you meant to measure.`,
    );
  const wrong = reportWrongReplies(doc, log);
  if (stop.interrupted) return stop.exitCode;
  return doc.incomplete || !r.kept.ok || erroring.length > 0 || wrong ? 1 : 0;
}

function describeTarget(t: {
  host: string;
  port: number;
  socket?: string;
  tls?: unknown;
  db: number;
}): string {
  const where = t.socket ? `unix:${t.socket}` : `${t.host}:${t.port}`;
  return `${where}${t.tls ? ' (TLS)' : ''}${t.db ? ` db ${t.db}` : ''}`;
}
