import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { countPrefix, type KeyStore, removePrefix } from './prefix-keys.js';

/**
 * A run marks its prefix as its own when it begins: `rbdb:<id>:__run__`, a hash naming the run, and
 * `rbdb:<id>:__alive__`, a key whose TTL the run keeps renewing. `cleanup` removes only prefixes
 * with a marker (so `rbdb:x:y` written by anyone else is never touched), and skips a run whose
 * alive key has not expired yet: the TTL is the server's clock, so no two clocks need to agree.
 * The marker is removed last, so a cleanup cut short can be finished later.
 */
export interface RunMarker {
  /** `rbdb:<id>:` */
  prefix: string;
  runId: string;
  /**
   * The client machine, as markerHost() names it (a hash, not its host name: anyone who can read the
   * server's keys reads the marker), and the runner's pid there. A marker of an older runner holds
   * the host name itself.
   */
  host: string;
  pid: number;
  startedAt: string;
  /** e.g. `redis-benchdb 0.2.0` */
  runner: string;
}

export interface FoundRun {
  marker: RunMarker;
  /** Keys under the prefix but the marker and alive key; "at least" when `countComplete` is false. */
  keys: number;
  countComplete: boolean;
  /** The run still renews its alive key (and is not a dead pid on this host). */
  running: boolean;
  /** The marker was written by a run on this machine. */
  thisHost: boolean;
}

/** How a marker names the machine that wrote it: the same on every run there, and not its name. */
export function markerHost(name = hostname()): string {
  return `sha256:${createHash('sha256').update(`redis-benchdb run marker\0${name}`).digest('hex').slice(0, 16)}`;
}

const MARKER_KEY = '__run__';
const ALIVE_KEY = '__alive__';
/** The alive key's TTL and how often the run renews it. */
const ALIVE_TTL_MS = 30_000;
const HEARTBEAT_MS = 5_000;

const PREFIX_RE = /^rbdb:([0-9a-f]{6}):$/;
const MARKER_RE = /^rbdb:[0-9a-f]{6}:__run__$/;

export class RunMarkerError extends Error {
  readonly code = 'ERR_RUN_MARKER';
}

/** Write the marker and start renewing the alive key; the returned function stops renewing. */
export async function markRun(store: KeyStore, prefix: string, runner: string): Promise<() => void> {
  const m = PREFIX_RE.exec(prefix);
  if (!m) throw new RunMarkerError(`not a run prefix: ${prefix} (expected rbdb:<6 hex digits>:)`);
  const alive = `${prefix}${ALIVE_KEY}`;
  const marker = `${prefix}${MARKER_KEY}`;
  await store.forKey(marker).redis.hset(marker, {
    runId: m[1]!,
    host: markerHost(),
    pid: String(process.pid),
    startedAt: new Date().toISOString(),
    runner,
  });
  // PSETEX rather than SET ... PX: SET is a measured command, and the commandstats cross-check of a
  // SET cell must count the cell's requests only.
  const renew = () => store.forKey(alive).redis.psetex(alive, ALIVE_TTL_MS, '1');
  await renew();
  const timer = setInterval(() => {
    renew().catch(() => {
      // The server is busy or gone: the cell reports that; a missed renewal only ages the key.
    });
  }, HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Remove a run's keys: the alive key first (the run is over), then its data, the marker last.
 * Stops between batches when `signal` aborts, leaving the marker so that `cleanup` finds the rest.
 */
export async function removeRun(
  store: KeyStore,
  prefix: string,
  signal?: AbortSignal,
): Promise<{ removed: number; stopped: boolean }> {
  const alive = `${prefix}${ALIVE_KEY}`;
  const marker = `${prefix}${MARKER_KEY}`;
  await removeOne(store, alive);
  const out = await removePrefix(store, prefix, {
    except: new Set([marker]),
    ...(signal ? { signal } : {}),
  });
  if (!out.stopped) await removeOne(store, marker);
  return out;
}

/**
 * The runs that marked prefixes on this server (or cluster), with their key counts. `maxScans`
 * bounds the SCAN calls per node, for the marker search and for each count.
 */
export async function findRuns(
  store: KeyStore,
  opts: { skipPrefix?: string; maxScans?: number } = {},
): Promise<FoundRun[]> {
  const maxScans = opts.maxScans ?? Number.POSITIVE_INFINITY;
  const markers: string[] = [];
  for (const node of store.nodes()) {
    let cursor = '0';
    let scans = 0;
    do {
      if (scans++ >= maxScans) break;
      const [next, keys] = await node.redis.scan(cursor, 'MATCH', `rbdb:*:${MARKER_KEY}`, 'COUNT', 5000);
      cursor = next;
      for (const k of keys) if (MARKER_RE.test(k)) markers.push(k);
    } while (cursor !== '0');
  }
  const found: FoundRun[] = [];
  for (const key of markers.sort()) {
    const prefix = key.slice(0, -MARKER_KEY.length);
    if (prefix === opts.skipPrefix) continue;
    const marker = await readMarker(store, prefix);
    if (!marker) continue;
    const alive = `${prefix}${ALIVE_KEY}`;
    const renewed = (await store.forKey(alive).redis.exists(alive)) === 1;
    const thisHost = marker.host === markerHost() || marker.host === hostname();
    const deadHere = thisHost && !pidAlive(marker.pid);
    const count = await countPrefix(store, prefix, maxScans);
    // The run's own bookkeeping (marker, alive key) is not what it left behind.
    const keys = Math.max(0, count.keys - 1 - (renewed ? 1 : 0));
    found.push({ marker, keys, countComplete: count.complete, running: renewed && !deadHere, thisHost });
  }
  return found;
}

/** The marker of `prefix`, or null when there is none (or it is not one a run wrote). */
async function readMarker(store: KeyStore, prefix: string): Promise<RunMarker | null> {
  const m = PREFIX_RE.exec(prefix);
  if (!m) return null;
  const key = `${prefix}${MARKER_KEY}`;
  let h: Record<string, string>;
  try {
    h = await store.forKey(key).redis.hgetall(key);
  } catch {
    return null; // WRONGTYPE: someone else's key of that name
  }
  if (h.runId !== m[1] || !h.runner?.startsWith('redis-benchdb')) return null;
  return {
    prefix,
    runId: h.runId!,
    host: h.host ?? '?',
    pid: Number(h.pid),
    startedAt: h.startedAt ?? '?',
    runner: h.runner,
  };
}

/** UNLINK, as the rest of the cleanup (an ACL that allows the cleanup allows this); DEL before Redis 4. */
async function removeOne(store: KeyStore, key: string): Promise<void> {
  const redis = store.forKey(key).redis;
  try {
    await redis.unlink(key);
  } catch (err) {
    if (!/unknown command/i.test((err as Error).message)) throw err;
    await redis.del(key);
  }
}

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
