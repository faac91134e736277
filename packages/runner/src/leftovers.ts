import { type BenchSession, countPrefix, findRuns } from '@redis-benchdb/engine';

/** SCAN calls per node when a run looks for earlier runs' keys at start (5,000 keys each). */
const START_SCANS = 200;

/** The run's cleanup as the result records it. */
export interface CleanupOutcome {
  removedKeys: number | null;
  error: string | null;
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

/** Other runs' keys on this server, found before the run: runs still going, and runs that ended. */
export interface EarlierRuns {
  /** How many other runs are using this server now. */
  running: number;
  /** Runs that ended and left keys: each one's prefix. */
  stale: string[];
  /** The keys the stale runs left, and whether every one was counted (else "at least"). */
  keys: number;
  complete: boolean;
}

/**
 * What earlier runs left on this server (their markers, by a bounded SCAN), or null when the server
 * refuses SCAN (ACLs): the run itself does not need it.
 */
export async function earlierRuns(session: BenchSession): Promise<EarlierRuns | null> {
  let runs: Awaited<ReturnType<typeof findRuns>>;
  try {
    runs = await findRuns(session.keyStore, { skipPrefix: session.prefix, maxScans: START_SCANS });
  } catch {
    return null;
  }
  const stale = runs.filter((r) => !r.running);
  return {
    running: runs.length - stale.length,
    stale: stale.map((r) => r.marker.prefix),
    keys: stale.reduce((a, r) => a + r.keys, 0),
    complete: stale.every((r) => r.countComplete),
  };
}
