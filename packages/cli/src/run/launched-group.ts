import path from 'node:path';
import {
  type LaunchedServer,
  type Pinning,
  pinProcess,
  startServer,
  type Target,
} from '@redis-benchdb/engine';
import type { ResultV1, Warning } from '@redis-benchdb/result';
import { EXIT_INTERRUPTED } from '../errors.js';
import { printComparison } from './group-comparison.js';
import { planLaunches } from './launch-plan.js';
import { parseRunFlags, type RunFlags } from './parse-options.js';
import { INTERRUPT_CODES, STOP_SIGNALS, signalExitCode } from './stop.js';

/** What `run` needs to run as one member of a group: where the launched server is, and its place. */
export interface GroupMember {
  target: Partial<Target> & { host: string; port: number };
  runGroup: NonNullable<ResultV1['runGroup']>;
  /** NOT_PINNED warnings, for the result. */
  warnings: Warning[];
  /** Called with the document before it is printed and signed. */
  onDocument(doc: ResultV1): void;
}

const log = (s: string) => process.stderr.write(`${s}\n`);

/**
 * `run --server-bin ...`: launch each planned server in turn, run the tests against it through
 * `runOne` (the ordinary run, which signs and stores its result), stop it, and go on. A server is
 * stopped whatever happens to its run; Ctrl-C stops the group after the current member.
 */
export async function runLaunchedGroup(
  flags: RunFlags,
  command: string[],
  runOne: (member: GroupMember) => Promise<number>,
): Promise<number> {
  parseRunFlags(flags, command); // a bad -t must fail before any server starts
  const plan = await planLaunches(flags);
  const size = plan.members.length;
  const clientWarnings = flags.clientCpus ? await pinClient(flags.clientCpus, log) : [];
  log(
    `run group ${plan.groupId}: ${size} launch${size > 1 ? 'es' : ''}${plan.varies.length ? ` (varies: ${plan.varies.join(', ')})` : ''}`,
  );

  let interrupted = false;
  let interruptCode = EXIT_INTERRUPTED;
  const onSignal = (signal: NodeJS.Signals) => {
    // During a member's run, run's own handler stops the load; between members, this one stops the group.
    if (interrupted) process.exit(interruptCode);
    interrupted = true;
    interruptCode = signalExitCode(signal);
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  const docs: { label: string; doc: ResultV1 }[] = [];
  let exitCode = 0;
  try {
    for (const m of plan.members) {
      if (interrupted) break;
      let server: LaunchedServer | null = null;
      try {
        server = await startServer({
          bin: m.bin,
          config: m.config,
          unixSocketInDir: m.transport === 'unix',
        }).catch((err: Error) => {
          // One variant the server refuses (a config line it does not know) must not cost the others.
          log(
            `error: [${m.index + 1}/${size}] ${m.label}: ${err.message}\n(skipped; the other launches go on)`,
          );
          exitCode = 1;
          return null;
        });
        if (!server) continue;
        if (interrupted) break; // Ctrl-C while it started: the finally below stops it
        const warnings = [...clientWarnings];
        let pinned = '';
        if (plan.serverCpus !== null) {
          const pin = await pinProcess(server.pid, plan.serverCpus);
          pinned = pin.applied ? `, pinned to CPU ${pin.applied}` : `, NOT pinned (${pin.error})`;
          if (!pin.applied) warnings.push(notPinned('--server-cpus', pin));
        }
        const where = m.transport === 'unix' ? `unix:${server.unixSocket}` : `127.0.0.1:${server.port}`;
        log(
          `[${m.index + 1}/${size}] ${m.label}: started ${path.basename(server.bin)} ${server.version} (pid ${server.pid}) on ${where}${pinned}`,
        );
        const code = await runOne({
          target: {
            host: '127.0.0.1',
            port: server.port,
            ...(m.transport === 'unix' ? { socket: server.unixSocket } : {}),
          },
          runGroup: { id: plan.groupId, index: m.index, size, label: m.label, varies: plan.varies },
          warnings,
          onDocument: (doc) => docs.push({ label: m.label, doc }),
        });
        // A member stopped by SIGINT, SIGTERM or SIGHUP exits 128 + its number: the group stops too.
        if (INTERRUPT_CODES.has(code)) {
          interrupted = true;
          interruptCode = code;
        } else exitCode = Math.max(exitCode, code);
      } finally {
        await server?.stop();
      }
    }
  } finally {
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
  }
  printComparison(plan.groupId, docs, flags.json || flags.csv ? process.stderr : process.stdout);
  if (interrupted)
    log(`interrupted: ${docs.length} of ${size} launches ran; every launched server is stopped`);
  return interrupted ? interruptCode : exitCode;
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

/** `r.json` → `r.2.json`: each member of a group writes its own signed file. */
export function memberOutPath(out: string, index: number): string {
  const ext = path.extname(out);
  return `${out.slice(0, out.length - ext.length)}.${index}${ext || '.json'}`;
}
