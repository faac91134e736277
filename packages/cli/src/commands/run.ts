import { rename, writeFile } from 'node:fs/promises';
import { defaultDatabasePath, ingest, openDatabase, resultPagePath } from '@redis-benchdb/db';
import {
  BenchSession,
  type CellOptions,
  type CellResult,
  type LaunchedServer,
  SUITES,
  suiteCells,
  summarizeCell,
  validateCellOptions,
  validateClusterCell,
} from '@redis-benchdb/engine';
import { signResult, validateResult } from '@redis-benchdb/result';
import { CliError, EXIT_USAGE } from '../errors.js';
import { checkClusterFlags, describeCluster } from '../run/cluster.js';
import { measureDrift, wantsDriftCheck } from '../run/drift.js';
import { collectEnvironment } from '../run/environment.js';
import { CSV_HEADER, csvRow, textLine } from '../run/format.js';
import { CellInterference, localServerPidOf } from '../run/interference.js';
import { checkLaunchFlags } from '../run/launch-plan.js';
import { type GroupMember, memberOutPath, pinClient, runLaunchedGroup } from '../run/launched-group.js';
import { leftoverHint, mentionLeftovers, removeRunKeys } from '../run/leftovers.js';
import { isListening, startThrowawayServer } from '../run/local-server.js';
import { parseRunFlags, type RunFlags } from '../run/parse-options.js';
import { Progress } from '../run/progress.js';
import { buildResultDocument, isErrorDominated, type MeasuredCell } from '../run/result-document.js';
import { RunStop } from '../run/stop.js';
import { createKey, loadKey } from '../signing-key.js';
import { pendingHint, postEnvelope, serverUrl, setAside, spool } from '../submit.js';
import { VERSION } from '../version.js';

const SUITE_ID = 'standard-v1';
const PRODUCT_NAMES: Record<string, string> = {
  redis: 'Redis',
  valkey: 'Valkey',
  keydb: 'KeyDB',
  dragonfly: 'Dragonfly',
};

/** `redis-benchdb run`: connect (or start a throwaway server), probe, run every trial, clean up, print, sign. */
export async function runCommand(flags: RunFlags, command: string[], member?: GroupMember): Promise<number> {
  // --server-bin: launch each server in turn and come back here once per launch, as a group member.
  checkClusterFlags(flags);
  if (!member && flags.serverBin)
    return runLaunchedGroup(flags, command, (m) => runCommand(flags, command, m));
  checkLaunchFlags(flags);
  const plan = parseRunFlags(flags, command);
  if (member) {
    plan.target = { ...plan.target, ...member.target };
    plan.targetIsDefault = false;
  }
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const extraWarnings = member?.warnings ?? (flags.clientCpus ? await pinClient(flags.clientCpus, log) : []);
  const out = flags.out && member ? memberOutPath(flags.out, member.runGroup.index) : flags.out;
  const mode = flags.json ? 'json' : flags.csv ? 'csv' : 'text';

  let cells: { label: string; options: CellOptions }[];
  let trials: number;
  try {
    cells = plan.cells
      ? plan.cells.map((o) => ({ label: adHocLabel(o), options: o }))
      : suiteCells(SUITE_ID, plan.profile, plan.common);
    trials = plan.trials ?? (plan.cells ? 1 : SUITES[SUITE_ID]!.profiles[plan.profile]!.trials);
    // Every cell is checked before any load: a bad one must not fail halfway through a suite.
    for (const c of cells) validateCellOptions(c.options);
    if (plan.target.cluster) for (const c of cells) validateClusterCell(c.options);
    if (cells.length === 0) throw new Error('no tests given: name some with -t (e.g. -t set,get)');
  } catch (err) {
    throw new CliError((err as Error).message, 'ERR_USAGE', EXIT_USAGE);
  }
  // Every result is signed; the key is needed only at the end, but a missing or unsafe one should
  // stop the run before it starts, and so should --submit with nowhere to submit to.
  let key = await loadKey();
  if (!key) {
    key = await createKey();
    log(
      `created a signing key at ${key.path} (${key.fingerprint}); it signs every result you keep or submit`,
    );
  }
  const submitTo = flags.submit ? await serverUrl(flags.server) : null;
  if (flags.submit && !submitTo) {
    throw new CliError(
      '--submit needs a server: pass --server URL, set REDIS_BENCHDB_SERVER, or put {"server": "URL"} in the config.json beside your signing key',
      'ERR_USAGE',
      EXIT_USAGE,
    );
  }

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
  try {
    session = await BenchSession.open(plan.target);
    // A throwaway server is new: nothing earlier can be on it.
    if (!launched && !member) await mentionLeftovers(session, plan.target, log);
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
    if (mode === 'csv' && !member?.runGroup.index) process.stdout.write(`${CSV_HEADER}\n`);

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
    // The first cell again, to see whether the machine changed while the run went on.
    const first = summaries[0];
    let drift = null;
    if (first && !failure && !stop.load.aborted && summaries.length === cells.length)
      if (wantsDriftCheck(!plan.cells, cells.length)) {
        if (mode === 'text') log(`measuring ${first.label} again to check for drift...`);
        drift = await measureDrift(session, cells[0]!, first, stop.load).catch(() => null);
      }

    const cleanup = await removeRunKeys(session, stop.cleanup, leftoverHint(plan.target, launched, member));
    if (cleanup.error) log(cleanup.error);
    const doc = buildResultDocument({
      suite: plan.cells ? null : { id: SUITE_ID, profile: plan.profile as 'quick' | 'full' },
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
      ...(member ? { runGroup: member.runGroup } : {}),
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

    member?.onDocument(doc);
    // A group prints one document per line (JSON Lines), so that stdout stays parseable.
    if (mode === 'json')
      process.stdout.write(`${member ? JSON.stringify(doc) : JSON.stringify(doc, null, 2)}\n`);
    const signed = `${JSON.stringify(signResult(doc, key.privateKeyPem), null, 2)}\n`;
    if (out) await writeAtomically(out, signed);
    const kept = await keepAndSubmit(signed, { store: flags.store !== false, db: flags.db, submitTo });
    if (!cleanup.error && mode === 'text')
      log(
        `removed ${cleanup.removedKeys} key${cleanup.removedKeys === 1 ? '' : 's'} under ${session.prefix}*`,
      );
    if (mode === 'text')
      for (const w of doc.warnings) log(`warning ${w.code}${w.cell ? ` (${w.cell})` : ''}: ${w.message}`);
    if (out) log(`wrote ${out}, signed by ${key.fingerprint} (check it with: redis-benchdb verify ${out})`);
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
    return stop.interrupted ? stop.exitCode : doc.incomplete || !kept.ok || erroring.length > 0 ? 1 : 0;
  } finally {
    stop.uninstall();
    await session?.close();
    await launched?.stop();
  }
}

/**
 * The signed result goes into the local database (the same ingest() as the service, so a result
 * the service would refuse is refused here too) and, with --submit, to the service; when the
 * service cannot take it now, into the spool for `submit --pending`.
 */
async function keepAndSubmit(
  signed: string,
  opts: { store: boolean; db: string | undefined; submitTo: string | null },
): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  let ok = true;
  let id: string | null = null;
  if (opts.store) {
    const dbPath = opts.db ?? defaultDatabasePath();
    const db = openDatabase(dbPath);
    try {
      id = ingest(db, signed).id;
      lines.push(`stored in ${dbPath} as ${id}`);
      // The site builds from the same database: say how to see the result there.
      const env = opts.db ? `REDIS_BENCHDB_DB=${dbPath} ` : '';
      lines.push(
        `see it on the local site: ${env}pnpm site:build && pnpm site:preview, then open http://localhost:4321${resultPagePath(id)}`,
      );
    } catch (err) {
      ok = false;
      lines.push(`error: the local database refused the result: ${(err as Error).message}`);
    } finally {
      db.close();
    }
  }
  if (opts.submitTo) {
    const out = await postEnvelope(opts.submitTo, signed);
    if (out.kind === 'stored')
      lines.push(
        `submitted: ${out.id} ${opts.submitTo}${out.pagePath}${out.duplicate ? ' (already there)' : ''}`,
      );
    else if (out.kind === 'unavailable') {
      const path = await spool(signed, opts.submitTo, opts.db);
      lines.push(`not submitted: ${out.reason}. Kept in ${path}: send it later with ${pendingHint(opts.db)}`);
    } else {
      ok = false;
      const path = await setAside(
        await spool(signed, opts.submitTo, opts.db),
        `${out.status} ${out.code}: ${out.message}`,
      );
      lines.push(
        `error: the service refused the result (${out.status} ${out.code}: ${out.message}); kept in ${path}`,
      );
    }
  }
  return { ok, lines };
}

/** Ad hoc cells are named as redis-benchmark names its tests: the user chose the parameters. */
function adHocLabel(o: CellOptions): string {
  if (o.setGetRatio) return `SET:GET ${o.setGetRatio.join(':')}`;
  return o.test === 'CUSTOM' ? (o.command ?? []).join(' ') : o.test;
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

async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}
