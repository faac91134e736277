import { rename, writeFile } from 'node:fs/promises';
import {
  BenchSession,
  type CellOptions,
  type LaunchedServer,
  suiteCells,
  validateCellOptions,
} from '@redis-benchdb/engine';
import { CliError, EXIT_INTERRUPTED, EXIT_USAGE } from '../errors.js';
import { CSV_HEADER, csvRow, textLine } from '../run/format.js';
import { isListening, startThrowawayServer } from '../run/local-server.js';
import {
  type RunDocument,
  runnerSummary,
  SERVER_INFO_FIELDS,
  targetSummary,
} from '../run/output-document.js';
import { parseRunFlags, type RunFlags } from '../run/parse-options.js';
import { Progress } from '../run/progress.js';

const SUITE_ID = 'standard-v1';

/** `redis-benchdb run`: parse, connect (or start a throwaway server), run the cells, clean up, print. */
export async function runCommand(flags: RunFlags, command: string[]): Promise<number> {
  const plan = parseRunFlags(flags, command);
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const mode = flags.json ? 'json' : flags.csv ? 'csv' : 'text';

  let cells: { label: string; options: CellOptions }[];
  try {
    cells = plan.cells
      ? plan.cells.map((o) => ({ label: adHocLabel(o), options: o }))
      : suiteCells(SUITE_ID, plan.profile, plan.common);
    // Every cell is checked before any load: a bad one must not fail halfway through a suite.
    for (const c of cells) validateCellOptions(c.options);
    if (cells.length === 0) throw new Error('no tests given: name some with -t (e.g. -t set,get)');
  } catch (err) {
    throw new CliError((err as Error).message, 'ERR_USAGE', EXIT_USAGE);
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
    const info = await session.control.info('server').catch(() => ({}) as Record<string, string>);
    const server = Object.fromEntries(SERVER_INFO_FIELDS.filter((k) => k in info).map((k) => [k, info[k]!]));
    const doc: RunDocument = {
      runner: runnerSummary(cells.map((c) => c.options)),
      suite: plan.cells ? null : { id: SUITE_ID, profile: plan.profile },
      target: targetSummary(plan.target),
      server,
      launchedServer: launched ? { bin: launched.bin, version: launched.version } : null,
      keyPrefix: session.prefix,
      startedAt: new Date().toISOString(),
      finishedAt: '',
      interrupted: false,
      incomplete: false,
      cleanup: { removedKeys: null, error: null },
      error: null,
      cells: [],
    };
    if (mode === 'text') {
      const what = doc.suite
        ? `suite ${SUITE_ID}, profile ${plan.profile} (${cells.length} cells)`
        : `${cells.length} test${cells.length > 1 ? 's' : ''}`;
      log(
        `redis-benchdb ${doc.runner.version}: ${what} against ${describeTarget(doc)}${server.redis_version ? ` (Redis ${server.redis_version})` : ''}; keys under ${session.prefix}*`,
      );
    }
    if (mode === 'csv') process.stdout.write(`${CSV_HEADER}\n`);

    const progress = new Progress();
    // A cell that throws (the server refused its setup, say) must not skip the cleanup below.
    let failure: { label: string; message: string } | null = null;
    for (const [i, cell] of cells.entries()) {
      if (controller.signal.aborted) break;
      let result: Awaited<ReturnType<BenchSession['runCell']>>;
      try {
        result = await session.runCell(cell.options, {
          signal: controller.signal,
          onProgress: (done, requested, elapsed) =>
            progress.update(
              cell.label,
              i,
              cells.length,
              done,
              requested,
              elapsed,
              cell.options.durationSec ?? null,
            ),
        });
      } catch (err) {
        progress.clear();
        failure = { label: cell.label, message: (err as Error).message };
        break;
      }
      progress.clear();
      doc.cells.push({ label: cell.label, ...result });
      if (mode === 'text') process.stdout.write(`${textLine(cell.label, result, flags.quiet === true)}\n`);
      else if (mode === 'csv') process.stdout.write(`${csvRow(cell.label, result)}\n`);
      if (result.incomplete && !controller.signal.aborted) break;
    }

    try {
      doc.cleanup.removedKeys = await session.cleanup();
    } catch (err) {
      doc.cleanup.error = `could not remove the run's keys (${(err as Error).message}); remove them with: redis-cli --scan --pattern '${session.prefix}*' | xargs redis-cli unlink`;
    }
    doc.finishedAt = new Date().toISOString();
    doc.interrupted = interrupted;
    doc.incomplete = interrupted || doc.cells.some((c) => c.incomplete) || doc.cells.length < cells.length;
    doc.error = failure ? `${failure.label}: ${failure.message}` : null;

    if (mode === 'json') process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    if (flags.out) await writeAtomically(flags.out, `${JSON.stringify(doc, null, 2)}\n`);
    if (mode === 'text') {
      if (doc.cleanup.error) log(doc.cleanup.error);
      else
        log(
          `removed ${doc.cleanup.removedKeys} key${doc.cleanup.removedKeys === 1 ? '' : 's'} under ${session.prefix}*`,
        );
      if (flags.out) log(`wrote ${flags.out}`);
    } else if (doc.cleanup.error) log(doc.cleanup.error);
    if (failure) {
      log(`error: ${doc.error} (the cells before it are kept; the run is marked incomplete)`);
      return 1;
    }
    const failed = doc.cells.find((c) => c.incomplete && c.error);
    if (failed && !interrupted)
      log(`error: ${failed.label}: ${failed.error}. The result is partial and marked incomplete.`);
    return interrupted ? EXIT_INTERRUPTED : doc.incomplete ? 1 : 0;
  } finally {
    process.off('SIGINT', onSigint);
    await session?.close();
    await launched?.stop();
  }
}

/** Ad hoc cells are named as redis-benchmark names its tests: the user chose the parameters. */
function adHocLabel(o: CellOptions): string {
  if (o.setGetRatio) return `SET:GET ${o.setGetRatio.join(':')}`;
  return o.test === 'CUSTOM' ? (o.command ?? []).join(' ') : o.test;
}

function describeTarget(doc: RunDocument): string {
  const t = doc.target;
  const where = t.socket ? `unix:${t.socket}` : `${t.host}:${t.port}`;
  return `${where}${t.tls ? ' (TLS)' : ''}${t.db ? ` db ${t.db}` : ''}`;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}
