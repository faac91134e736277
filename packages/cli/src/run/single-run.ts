import type { ResultV1 } from '@redis-benchdb/result';
import { compileSchemas } from '@redis-benchdb/result';
import {
  isErrorDominated,
  type RunPlan,
  type RunRequest,
  removedLine,
  runSingle,
  type SingleRunReport,
  type SingleRunResult,
  SUITE_ID,
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
  stop: RunStop;
}

/**
 * `redis-benchdb run` on one server: the runner's runSingle (connect or start a throwaway server,
 * probe, run every trial, clean up), told on the terminal; then sign, keep, print and exit.
 */
export async function runOnce(plan: RunPlan, flags: RunRequest): Promise<number> {
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const mode = flags.json ? 'json' : flags.csv ? 'csv' : 'text';
  const stop = new RunStop(log);
  const run: Run = { plan, flags, log, mode, stop };
  const held: { signing?: Awaited<ReturnType<typeof prepareSigning>> } = {};
  try {
    const result = await runSingle(
      plan,
      { request: flags, runnerVersion: VERSION, signal: stop.load, cleanupSignal: stop.cleanup },
      {
        ...singleRunLines(run),
        checked: async () => {
          held.signing = await prepareSigning(flags, log);
          // Paid now, not after a stall, when the run has --timeout plus a margin to end in.
          compileSchemas();
        },
        stoppable: () => stop.install(),
      },
    );
    if (!held.signing) throw new Error('the run ended before its checks (a redis-benchdb bug)');
    const { key, submit } = held.signing;
    const kept = await signAndKeep(run, result.doc, key, submit);
    return report(run, { ...result, kept, key });
  } finally {
    stop.uninstall();
  }
}

/** A single run as the terminal shows it: the runner's report, in lines. */
function singleRunLines(run: Run): SingleRunReport {
  const { plan, mode, log } = run;
  return {
    log,
    cells: cellLines(mode, run.flags.quiet === true, log),
    leftoverHint,
    earlierRuns: (target, found) => mentionLeftovers(found, target, log),
    describing: () => {
      if (mode === 'text') log('describing the machine, the server and the link...');
    },
    described: (d) => {
      if (mode === 'text') {
        const { cells, trials } = d.planned;
        const what = plan.cells
          ? `${cells.length} test${cells.length > 1 ? 's' : ''}`
          : `suite ${SUITE_ID}, profile ${plan.profile} (${cells.length} cells)`;
        const server = d.environment.server;
        log(
          `redis-benchdb: ${what}${trials > 1 ? `, ${trials} trials each` : ''} against ${describeTarget(plan.target)} (${PRODUCT_NAMES[server.product] ?? server.product} ${server.version ?? '?'}); keys under ${d.keyPrefix}*`,
        );
        if (d.cluster) log(describeCluster(d.cluster.topology));
      }
      if (mode === 'csv') process.stdout.write(`${CSV_HEADER}\n`);
    },
    // What the run spent writing keys for its read cells: most of a short run of the suite (issue 41).
    preloadCost: (keys, seconds, total) => {
      if (mode === 'text')
        log(
          `the run took ${total.toFixed(1)} s, ${seconds.toFixed(1)} s of it writing ${keys.toLocaleString('en-US')} keys for the GET cells to read (unmeasured, and the same however short the cells are)`,
        );
    },
  };
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
  r: SingleRunResult & { kept: { ok: boolean; lines: string[] }; key: SigningKey },
): number {
  const { log, mode, stop, flags } = run;
  const { doc, cleanup, failure } = r;
  if (!cleanup.error && mode === 'text') log(removedLine(cleanup.removedKeys ?? 0, r.keyPrefix));
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
