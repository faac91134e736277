import { rename, writeFile } from 'node:fs/promises';
import { defaultDatabasePath, ingest, openDatabase, resultPagePath } from '@redis-benchdb/db';
import {
  BenchSession,
  type CellResult,
  type CellSummary,
  type LaunchedServer,
  summarizeCell,
} from '@redis-benchdb/engine';
import { signResult, validateResult } from '@redis-benchdb/result';
import { EXIT_INTERRUPTED } from '../errors.js';
import { planCells, SUITE_ID } from '../run/cells.js';
import { checkClusterFlags, describeCluster } from '../run/cluster.js';
import { collectEnvironment } from '../run/environment.js';
import { CSV_HEADER, csvRow, textLine } from '../run/format.js';
import { checkLaunchFlags } from '../run/launch-plan.js';
import { pinClient, runLaunchedGroup } from '../run/launched-group.js';
import { isListening, startThrowawayServer } from '../run/local-server.js';
import { parseRunFlags, type RunFlags } from '../run/parse-options.js';
import { Progress } from '../run/progress.js';
import { buildResultDocument } from '../run/result-document.js';
import { prepareSigning } from '../run/signing.js';
import { postEnvelope, setAside, spool } from '../submit.js';

export const PRODUCT_NAMES: Record<string, string> = {
  redis: 'Redis',
  valkey: 'Valkey',
  keydb: 'KeyDB',
  dragonfly: 'Dragonfly',
};

/** `redis-benchdb run`: connect (or start a throwaway server), probe, run every trial, clean up, print, sign. */
export async function runCommand(flags: RunFlags, command: string[]): Promise<number> {
  // --server-bin: a group of launched servers, planned once and run interleaved (run/launched-group.ts).
  checkClusterFlags(flags);
  if (flags.serverBin) return runLaunchedGroup(flags, command);
  checkLaunchFlags(flags);
  const plan = parseRunFlags(flags, command);
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const extraWarnings = flags.clientCpus ? await pinClient(flags.clientCpus, log) : [];
  const out = flags.out;
  const mode = flags.json ? 'json' : flags.csv ? 'csv' : 'text';

  const { cells, trials, suite } = planCells(plan);
  const { key, submitTo } = await prepareSigning(flags, log);

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

  const controller = new AbortController();
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(EXIT_INTERRUPTED);
    interrupted = true;
    log("\ninterrupted: stopping the load and removing this run's keys (Ctrl-C again to quit at once)");
    controller.abort();
  };
  process.on('SIGINT', onSigint);

  let session: BenchSession | null = null;
  try {
    session = await BenchSession.open(plan.target);
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
    const summaries: CellSummary[] = [];
    // A cell that throws (the server refused its setup, say) must not skip the cleanup below.
    let failure: string | null = null;
    for (const [i, cell] of cells.entries()) {
      if (controller.signal.aborted) break;
      const results: CellResult[] = [];
      try {
        for (let t = 0; t < trials && !controller.signal.aborted; t++) {
          const label = trials > 1 ? `${cell.label} (trial ${t + 1}/${trials})` : cell.label;
          const r = await session.runCell(cell.options, {
            signal: controller.signal,
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
        const summary = summarizeCell(cell.label, results);
        summaries.push(summary);
        if (mode === 'text') process.stdout.write(`${textLine(summary, flags.quiet === true)}\n`);
        else if (mode === 'csv') process.stdout.write(`${csvRow(summary)}\n`);
        if (summary.incomplete && !controller.signal.aborted) break;
      }
      if (failure) break;
    }

    const cleanup: { removedKeys: number | null; error: string | null } = { removedKeys: null, error: null };
    try {
      cleanup.removedKeys = await session.cleanup();
    } catch (err) {
      cleanup.error = `could not remove the run's keys (${(err as Error).message}); remove them with: redis-cli --scan --pattern '${session.prefix}*' | xargs redis-cli unlink`;
    }
    const doc = buildResultDocument({
      suite,
      target: plan.target,
      keyPrefix: session.prefix,
      environment,
      cells: summaries,
      startedAt,
      finishedAt: new Date(),
      interrupted,
      plannedCells: cells.length,
      error: failure,
      cleanup,
      extraWarnings,
      cluster: session.cluster?.topology ?? null,
    });
    const valid = validateResult(doc);
    if (!valid.ok) {
      // Our own document failing our own schema is a bug; say so rather than publish it.
      throw new Error(
        `the result does not match schemas/result.v1 (a redis-benchdb bug): ${valid.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
      );
    }

    if (mode === 'json') process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    const signed = `${JSON.stringify(signResult(doc, key.privateKeyPem), null, 2)}\n`;
    if (out) await writeAtomically(out, signed);
    const kept = await keepAndSubmit(signed, { store: flags.store !== false, db: flags.db, submitTo });
    if (cleanup.error) log(cleanup.error);
    else if (mode === 'text')
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
    if (failed && !interrupted)
      log(`error: ${failed.label}: ${failed.error}. The result is partial and marked incomplete.`);
    return interrupted ? EXIT_INTERRUPTED : doc.incomplete || !kept.ok ? 1 : 0;
  } finally {
    process.off('SIGINT', onSigint);
    await session?.close();
    await launched?.stop();
  }
}

/**
 * The signed result goes into the local database (the same ingest() as the service, so a result
 * the service would refuse is refused here too) and, with --submit, to the service; when the
 * service cannot take it now, into the spool for `submit --pending`.
 */
export async function keepAndSubmit(
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
      const path = await spool(signed, id ?? `result-${Date.now()}`);
      lines.push(
        `not submitted: ${out.reason}. Kept in ${path}: send it later with redis-benchdb submit --pending`,
      );
    } else {
      ok = false;
      const path = await setAside(
        await spool(signed, id ?? `result-${Date.now()}`),
        `${out.status} ${out.code}: ${out.message}`,
      );
      lines.push(
        `error: the service refused the result (${out.status} ${out.code}: ${out.message}); kept in ${path}`,
      );
    }
  }
  return { ok, lines };
}

export function describeTarget(t: {
  host: string;
  port: number;
  socket?: string;
  tls?: unknown;
  db: number;
}): string {
  const where = t.socket ? `unix:${t.socket}` : `${t.host}:${t.port}`;
  return `${where}${t.tls ? ' (TLS)' : ''}${t.db ? ` db ${t.db}` : ''}`;
}

export async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}
