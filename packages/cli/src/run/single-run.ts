import { BenchSession, type CellResult, type LaunchedServer, summarizeCell } from '@redis-benchdb/engine';
import { compileSchemas, signResult, validateResult } from '@redis-benchdb/result';
import { VERSION } from '../version.js';
import { planCells, SUITE_ID } from './cells.js';
import { describeCluster } from './cluster.js';
import { driftCellIndex, measureDrift, wantsDriftCheck } from './drift.js';
import { collectEnvironment } from './environment.js';
import { CSV_HEADER, csvRow, textLine } from './format.js';
import { CellInterference, localServerPidOf } from './interference.js';
import { keepAndSubmit, verifyHint, writeAtomically } from './keep.js';
import { pinClient } from './launched-group.js';
import { leftoverHint, mentionLeftovers, removeRunKeys } from './leftovers.js';
import { isListening, startThrowawayServer } from './local-server.js';
import { Progress } from './progress.js';
import type { RunPlan, RunRequest } from './request.js';
import {
  buildResultDocument,
  isErrorDominated,
  type MeasuredCell,
  reportWrongReplies,
} from './result-document.js';
import { prepareSigning } from './signing.js';
import { searchCell } from './slo-search.js';
import { RunStop } from './stop.js';

const PRODUCT_NAMES: Record<string, string> = {
  redis: 'Redis',
  valkey: 'Valkey',
  keydb: 'KeyDB',
  dragonfly: 'Dragonfly',
};

/** `redis-benchdb run` on one server: connect (or start a throwaway one), probe, run every trial, clean up, print, sign. */
export async function runOnce(plan: RunPlan, flags: RunRequest): Promise<number> {
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const extraWarnings = flags.clientCpus ? await pinClient(flags.clientCpus, log) : [];
  const out = flags.out;
  const mode = flags.json ? 'json' : flags.csv ? 'csv' : 'text';

  const { cells, trials, suite } = planCells(plan);
  const { key, submit } = await prepareSigning(flags, log);
  // Paid now, not after a stall, when the run has --timeout plus a margin to end in.
  compileSchemas();

  let launched: LaunchedServer | null = null;
  if (
    plan.targetIsDefault &&
    flags.launch !== false &&
    !(await isListening(plan.target.host, plan.target.port))
  ) {
    launched = await startThrowawayServer();
    plan.target.port = launched.port;
    log(
      `nothing answers on 127.0.0.1:6379: started a throwaway redis-server ${launched.version} on 127.0.0.1:${launched.port} for this run (stopped at the end; --no-launch to fail instead)`,
    );
  }

  const stop = new RunStop(log);
  stop.install();

  let session: BenchSession | null = null;
  let cleanedUp = false;
  try {
    session = await BenchSession.open(plan.target);
    // A throwaway server is new: nothing earlier can be on it.
    if (!launched) await mentionLeftovers(session, plan.target, log);
    await session.markStart(`redis-benchdb ${VERSION}`).catch((err: Error) =>
      // An ACL may refuse HSET or PSETEX: the run goes on, but a killed run's keys are then unmarked.
      log(
        `warning: could not mark ${session!.prefix} as this run's (${err.message}): if this run is killed, \`cleanup\` will not find its keys`,
      ),
    );
    const startedAt = new Date();
    if (mode === 'text') log('describing the machine, the server and the link...');
    const environment = await collectEnvironment(session, plan.target, {
      cloudMetadata: flags.cloudMetadata === true,
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

    const progress = new Progress();
    const summaries: MeasuredCell[] = [];
    const serverPid = await localServerPidOf(session, environment.server.local);
    // A cell that throws (the server refused its setup, say) must not skip the cleanup below.
    let failure: string | null = null;
    for (const [i, cell] of cells.entries()) {
      if (stop.load.aborted) break;
      const results: CellResult[] = [];
      const interference = new CellInterference(serverPid);
      try {
        for (let t = 0; t < trials && !stop.load.aborted; t++) {
          const label = trials > 1 ? `${cell.label} (trial ${t + 1}/${trials})` : cell.label;
          if (cell.slo) {
            const answerTo = mode === 'text' ? process.stdout : process.stderr;
            const hooks = { signal: stop.load, ...interference.hooks };
            const r = await searchCell(session, cell.options, cell.slo, label, hooks, answerTo);
            results.push(r);
            if (r.incomplete) break;
            continue;
          }
          const r = await session.runCell(cell.options, {
            signal: stop.load,
            ...interference.hooks,
            onProgress: (done, requested, elapsed) =>
              progress.update(
                label,
                i,
                cells.length,
                done,
                requested,
                elapsed,
                cell.options.durationSec ?? null,
              ),
          });
          results.push(r);
          if (r.incomplete) break;
        }
      } catch (err) {
        failure = `${cell.label}: ${(err as Error).message}`;
      }
      progress.clear();
      if (results.length > 0) {
        const summary = { ...summarizeCell(cell.label, results), interference: interference.summary() };
        summaries.push(summary);
        if (mode === 'text') process.stdout.write(`${textLine(summary, flags.quiet === true)}\n`);
        else if (mode === 'csv') process.stdout.write(`${csvRow(summary)}\n`);
        if (summary.incomplete && !stop.load.aborted) break;
      }
      if (failure) break;
    }
    // A cell again, to see whether the machine changed while the run went on.
    const driftAt = driftCellIndex(cells);
    const first = summaries[driftAt];
    let drift = null;
    if (first && !failure && !stop.load.aborted && summaries.length === cells.length)
      if (wantsDriftCheck(!plan.cells, cells.length)) {
        if (mode === 'text') log(`measuring ${first.label} again to check for drift...`);
        drift = await measureDrift(session, cells[driftAt]!, first, stop.load).catch(() => null);
      }

    cleanedUp = true;
    const cleanup = await removeRunKeys(session, stop.cleanup, leftoverHint(plan.target, launched));
    if (cleanup.error) log(cleanup.error);
    const doc = buildResultDocument({
      suite,
      target: plan.target,
      keyPrefix: session.prefix,
      environment,
      cells: summaries,
      startedAt,
      finishedAt: new Date(),
      interrupted: stop.interrupted,
      plannedCells: cells.length,
      error: failure,
      cleanup,
      extraWarnings,
      driftCheck: drift,
      cluster: session.cluster?.topology ?? null,
    });
    const valid = validateResult(doc);
    if (!valid.ok) {
      // Our own document failing our own schema is a bug; say so rather than publish it.
      throw new Error(
        `the result does not match schemas/result.v1 (a redis-benchdb bug): ${valid.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
      );
    }

    // What --json prints is what is signed: the document with the key it binds (keyFingerprint).
    const bound = { ...doc, keyFingerprint: key.fingerprint };
    if (mode === 'json') process.stdout.write(`${JSON.stringify(bound, null, 2)}\n`);
    const signed = `${JSON.stringify(signResult(bound, key.privateKeyPem), null, 2)}\n`;
    if (out) await writeAtomically(out, signed);
    const kept = await keepAndSubmit(signed, { store: flags.store !== false, db: flags.db, submit });
    if (!cleanup.error && mode === 'text')
      log(
        `removed ${cleanup.removedKeys} key${cleanup.removedKeys === 1 ? '' : 's'} under ${session.prefix}*`,
      );
    if (mode === 'text')
      for (const w of doc.warnings) log(`warning ${w.code}${w.cell ? ` (${w.cell})` : ''}: ${w.message}`);
    if (out) log(`wrote ${out}, signed by ${key.fingerprint} (check it with: ${verifyHint(out)})`);
    for (const line of kept.lines) log(line);
    if (failure) {
      log(`error: ${failure} (the cells before it are kept; the run is marked incomplete)`);
      return 1;
    }
    const failed = doc.cells.find((c) => c.incomplete && c.error);
    if (failed && !stop.interrupted)
      log(`error: ${failed.label}: ${failed.error}. The result is partial and marked incomplete.`);
    const erroring = flags.allowErrors ? [] : summaries.filter(isErrorDominated);
    if (erroring.length > 0)
      log(
        `error: most replies were errors in ${erroring.map((c) => c.label).join(', ')} (warning ERRORS); the result is kept with the warning. Remove the cause (the server's error says it), or pass --allow-errors if the errors are what you meant to measure.`,
      );
    const wrong = reportWrongReplies(doc, log);
    if (stop.interrupted) return stop.exitCode;
    return doc.incomplete || !kept.ok || erroring.length > 0 || wrong ? 1 : 0;
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
