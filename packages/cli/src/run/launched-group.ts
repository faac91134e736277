import {
  type LaunchFlags,
  type MemberResult,
  type RunPlan,
  type RunRequest,
  runGroup,
} from '@redis-benchdb/runner';
import { VERSION } from '../version.js';
import { printComparison } from './group-comparison.js';
import { groupLines } from './group-lines.js';
import { keepMember } from './group-result.js';
import { prepareSigning } from './signing.js';
import { RunStop } from './stop.js';

const log = (s: string) => process.stderr.write(`${s}\n`);

/**
 * `run --server-bin ...`: the runner's runGroup (start every planned server, run the tests
 * interleaved round by round, build each member's result), told on the terminal. Each member's
 * result is signed, printed and kept here as it ends. Ctrl-C stops the load and keeps what was
 * measured, marked interrupted.
 */
export async function runLaunchedGroup(runPlan: RunPlan, flags: LaunchFlags & RunRequest): Promise<number> {
  const stop = new RunStop(log);
  const held: { signing?: Awaited<ReturnType<typeof prepareSigning>> } = {};
  let exitCode = 0;
  const keep = async (result: MemberResult) => {
    if (!held.signing) throw new Error('the group ended before its checks (a redis-benchdb bug)');
    const code = await keepMember(result, { flags, signing: held.signing });
    exitCode = Math.max(exitCode, code);
  };
  let group: Awaited<ReturnType<typeof runGroup>>;
  try {
    group = await runGroup(
      runPlan,
      { request: flags, runnerVersion: VERSION, signal: stop.load, cleanupSignal: stop.cleanup },
      {
        log,
        cells: groupLines({ quiet: flags.quiet === true, text: !flags.json && !flags.csv }),
        checked: async () => {
          held.signing = await prepareSigning(flags, log);
        },
        stoppable: () => stop.install(),
        finished: keep,
      },
    );
  } finally {
    stop.uninstall();
  }
  const { groupId, docs, size } = group;
  if (group.notStarted > 0) exitCode = Math.max(exitCode, 1);
  printComparison(groupId, docs, flags.json || flags.csv ? process.stderr : process.stdout);
  if (stop.interrupted)
    log(
      `interrupted: ${docs.length} of ${size} results kept, marked interrupted; every launched server is stopped`,
    );
  return stop.interrupted ? stop.exitCode : exitCode;
}
