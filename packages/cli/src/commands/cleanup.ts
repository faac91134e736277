import { createInterface } from 'node:readline/promises';
import { defineCommand, type FlagsOf, flag, text } from '@redis-benchdb/command';
import type { ClusterControl, FoundRun, KeyStore } from '@redis-benchdb/engine';
import { CliError, EXIT_USAGE } from '../errors.js';
import { parseTarget, TARGET_OPTIONS } from '../options/target.js';

const CLEANUP_OPTIONS = {
  prefix: text('--prefix <prefix>', 'only this run prefix, e.g. rbdb:3f9c1a: (as the run printed it)'),
  dryRun: flag('--dry-run', 'list what would be removed, remove nothing'),
  yes: flag('--yes', 'remove without asking (needed when not on a terminal)'),
  force: flag('--force', 'also remove the keys of runs that still look alive'),
  cluster: flag('--cluster', 'Redis Cluster: -h/-p name any node; every primary is scanned'),
  ...TARGET_OPTIONS,
};

export type CleanupFlags = FlagsOf<typeof CLEANUP_OPTIONS>;

export default defineCommand({
  name: 'cleanup',
  description: 'remove keys that killed runs left: only prefixes a run marked as its own (rbdb:<id>:__run__)',
  options: CLEANUP_OPTIONS,
  helpAfter: '\nThe password: -a, or $REDISCLI_AUTH (as redis-cli reads it).\n',
  run: (flags) => cleanupCommand(flags),
});

/**
 * `redis-benchdb cleanup`: remove what earlier runs left (a SIGKILL, a second Ctrl-C, a lost
 * connection). Only prefixes a run marked as its own at start (`rbdb:<id>:__run__`) are touched;
 * a run that still renews its alive key is skipped unless --force. It lists first; on a terminal
 * it asks, elsewhere it needs --yes.
 */
export async function cleanupCommand(flags: CleanupFlags): Promise<number> {
  if (flags.prefix !== undefined && !/^rbdb:[0-9a-f]{6}:$/.test(flags.prefix))
    throw new CliError(
      `invalid --prefix: "${flags.prefix}" (expected a run's prefix like rbdb:3f9c1a:, as run printed it)`,
      'ERR_USAGE',
      EXIT_USAGE,
    );
  // The password stays out of command lines that hints print; REDISCLI_AUTH is how redis-cli takes it.
  const password = flags.password ?? (process.env.REDISCLI_AUTH || undefined);
  const target = parseTarget({ ...flags, ...(password !== undefined ? { password } : {}) });
  // Loaded here, not at the top: the program's --help loads this file for the definition above.
  const { ClusterControl, ControlPlane, findRuns, removeRun } = await import('@redis-benchdb/engine');
  const control = await ControlPlane.connect(target);
  let cluster: ClusterControl | null = null;
  try {
    if (target.cluster) cluster = await ClusterControl.open(target, control);
    const store: KeyStore = cluster ?? control;
    let runs = await findRuns(store);
    if (flags.prefix !== undefined) {
      runs = runs.filter((r) => r.marker.prefix === flags.prefix);
      // Awaited here: the connections close in finally, after it is done.
      if (runs.length === 0) return await noMarker(store, flags.prefix);
    }
    const out = (s: string) => process.stdout.write(`${s}\n`);
    if (runs.length === 0) {
      out('nothing to remove: no run left a marked prefix (rbdb:<id>:__run__) here');
      return 0;
    }
    const chosen = runs.filter((r) => flags.force || !r.running);
    for (const r of runs) out(describeRun(r, chosen.includes(r)));
    const keys = chosen.reduce((a, r) => a + r.keys, 0);
    if (flags.dryRun || chosen.length === 0) {
      if (chosen.length < runs.length)
        out('a run that renewed its alive key in the last 30 s is still going: --force removes it anyway');
      return 0;
    }
    const what = `${keys.toLocaleString('en-US')} key${keys === 1 ? '' : 's'} under ${chosen.length} prefix${chosen.length > 1 ? 'es' : ''}`;
    if (!flags.yes && !(await confirm(`remove ${what}? [y/N] `))) {
      out('nothing removed');
      return 0;
    }
    let removed = 0;
    for (const r of chosen) {
      const n = (await removeRun(store, r.marker.prefix)).removed;
      removed += n;
      out(`removed ${n.toLocaleString('en-US')} key${n === 1 ? '' : 's'} under ${r.marker.prefix}*`);
    }
    if (chosen.length > 1) out(`removed ${removed.toLocaleString('en-US')} keys in all`);
    return 0;
  } finally {
    await cluster?.close();
    await control.close();
  }
}

function describeRun(r: FoundRun, chosen: boolean): string {
  const m = r.marker;
  const n = `${r.countComplete ? '' : 'at least '}${r.keys.toLocaleString('en-US')}`;
  const state = r.running ? (chosen ? ' (still running: --force)' : ' (still running: skipped)') : '';
  return `${m.prefix}*  ${n} key${r.keys === 1 ? '' : 's'}  ${m.runner}, pid ${m.pid} on ${r.thisHost ? 'this host' : 'another host'}, started ${m.startedAt}${state}`;
}

/** --prefix named a prefix with no marker: refuse if it holds keys (they may be anyone's). */
async function noMarker(store: KeyStore, prefix: string): Promise<number> {
  const { countPrefix } = await import('@redis-benchdb/engine');
  const { keys } = await countPrefix(store, prefix, 1);
  if (keys === 0) {
    process.stdout.write(`nothing to remove under ${prefix}*\n`);
    return 0;
  }
  throw new CliError(
    `${prefix}* holds keys but no run marker (${prefix}__run__): cleanup removes only prefixes a redis-benchdb run marked as its own, so it leaves these alone`,
    'ERR_NO_MARKER',
  );
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY)
    throw new CliError(
      'cleanup removes keys: add --yes to do it without a terminal to confirm on, or --dry-run to only list them',
      'ERR_USAGE',
      EXIT_USAGE,
    );
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
