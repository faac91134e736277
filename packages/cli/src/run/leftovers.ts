import {
  type BenchSession,
  countPrefix,
  findRuns,
  type LaunchedServer,
  type Target,
} from '@redis-benchdb/engine';
import { cleanupHint } from './cleanup-hint.js';

/** SCAN calls per node when a run looks for earlier runs' keys at start (5,000 keys each). */
const START_SCANS = 200;

/** The run's cleanup as the result records it. */
export interface CleanupOutcome {
  removedKeys: number | null;
  error: string | null;
}

/** Keys left on a server the run launched (a throwaway, or a group member) go with it. */
export const launchedHint = (): string => 'the throwaway server is stopped with them';

/**
 * What to do about keys a run could not remove: on a server the run launched, nothing (it is
 * stopped with them); elsewhere, the `cleanup` command with the run's own connection flags.
 */
export function leftoverHint(target: Target, launched: LaunchedServer | null): (prefix: string) => string {
  if (launched) return launchedHint;
  return (prefix) => `remove them with: ${cleanupHint(target, prefix)}`;
}

/**
 * Remove the run's keys; a second signal (`signal`) stops that, and the outcome then says how many
 * keys are left (counted by SCAN, bounded: "at least N" past the bound), where, and how to remove them.
 */
export async function removeRunKeys(
  session: BenchSession,
  signal: AbortSignal,
  hint: (prefix: string) => string,
): Promise<CleanupOutcome> {
  const prefix = session.prefix;
  try {
    const out = await session.removeKeys(signal);
    if (!out.stopped) return { removedKeys: out.removed, error: null };
    const left = await countPrefix(session.keyStore, prefix, START_SCANS);
    left.keys = Math.max(0, left.keys - 1); // the marker, which cleanup removes last
    const n = `${left.complete ? '' : 'at least '}${left.keys.toLocaleString('en-US')}`;
    return {
      removedKeys: null,
      error: `the cleanup was stopped: ${n} key${left.keys === 1 ? '' : 's'} remain under ${prefix}*; ${hint(prefix)}`,
    };
  } catch (err) {
    return {
      removedKeys: null,
      error: `could not remove the run's keys under ${prefix}* (${(err as Error).message}); ${hint(prefix)}`,
    };
  }
}

/** Say, before the run, what earlier runs left on this server and how to remove it. */
export async function mentionLeftovers(
  session: BenchSession,
  target: Target,
  log: (s: string) => void,
): Promise<void> {
  let runs: Awaited<ReturnType<typeof findRuns>>;
  try {
    runs = await findRuns(session.keyStore, { skipPrefix: session.prefix, maxScans: START_SCANS });
  } catch {
    return; // a server that refuses SCAN (ACLs) cannot be checked; the run itself does not need it
  }
  const stale = runs.filter((r) => !r.running);
  const running = runs.length - stale.length;
  if (running > 0)
    log(
      `${running} other run${running > 1 ? 's are' : ' is'} using this server now: this run's figures share it`,
    );
  if (stale.length === 0) return;
  const keys = stale.reduce((a, r) => a + r.keys, 0);
  const atLeast = stale.some((r) => !r.countComplete) ? 'at least ' : '';
  log(
    `${stale.length} earlier run${stale.length > 1 ? 's' : ''} left ${atLeast}${keys.toLocaleString('en-US')} key${keys === 1 ? '' : 's'} here (${stale.map((r) => r.marker.prefix).join(', ')}); ${cleanupHint(target, null)} removes them`,
  );
}
