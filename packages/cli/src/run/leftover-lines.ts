import type { Target } from '@redis-benchdb/engine';
import { type EarlierRuns, launchedHint } from '@redis-benchdb/runner';
import { cleanupHint } from './cleanup-hint.js';

/**
 * What to do about keys a run could not remove: on a server the run launched, nothing (it is
 * stopped with them); elsewhere, the `cleanup` command with the run's own connection flags.
 */
export function leftoverHint(target: Target, launched: boolean): (prefix: string) => string {
  if (launched) return launchedHint;
  return (prefix) => `remove them with: ${cleanupHint(target, prefix)}`;
}

/** Say, before the run, what earlier runs left on this server and how to remove it. */
export function mentionLeftovers(found: EarlierRuns, target: Target, log: (s: string) => void): void {
  const { running, stale, keys } = found;
  if (running > 0)
    log(
      `${running} other run${running > 1 ? 's are' : ' is'} using this server now: this run's figures share it`,
    );
  if (stale.length === 0) return;
  const atLeast = found.complete ? '' : 'at least ';
  log(
    `${stale.length} earlier run${stale.length > 1 ? 's' : ''} left ${atLeast}${keys.toLocaleString('en-US')} key${keys === 1 ? '' : 's'} here (${stale.join(', ')}); ${cleanupHint(target, null)} removes them`,
  );
}
