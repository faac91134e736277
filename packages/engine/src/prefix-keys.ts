import { keySlot } from './cluster/slots.js';
import type { ControlPlane } from './control.js';
import { escapeGlob } from './control.js';

/** Where a run's keys live: one server, or every primary of a cluster. */
export interface KeyStore {
  /** Every node that holds keys: the server, or each primary. */
  nodes(): ControlPlane[];
  /** The node that holds `key`. */
  forKey(key: string): ControlPlane;
  /** Cluster: a multi-key UNLINK must stay within one slot. */
  readonly clustered: boolean;
}

const SCAN_COUNT = 5000;

/** Every batch of keys matching `prefix*`, node by node; stops early when `signal` aborts. */
async function* scanPrefix(
  store: KeyStore,
  prefix: string,
  signal?: AbortSignal,
): AsyncGenerator<{ node: ControlPlane; keys: string[] }> {
  const match = `${escapeGlob(prefix)}*`;
  for (const node of store.nodes()) {
    let cursor = '0';
    do {
      if (signal?.aborted) return;
      const [next, keys] = await node.redis.scan(cursor, 'MATCH', match, 'COUNT', SCAN_COUNT);
      cursor = next;
      if (keys.length > 0) yield { node, keys };
    } while (cursor !== '0');
  }
}

/**
 * Remove every key under `prefix` but those in `except`, and nothing else. SCAN is used rather
 * than the key names the run could have made, because custom commands can create any name.
 * `stopped` says the signal ended it before every key was gone.
 */
export async function removePrefix(
  store: KeyStore,
  prefix: string,
  opts: { except?: ReadonlySet<string>; signal?: AbortSignal } = {},
): Promise<{ removed: number; stopped: boolean }> {
  let removed = 0;
  let unlink = true;
  for await (const batch of scanPrefix(store, prefix, opts.signal)) {
    const keys = opts.except ? batch.keys.filter((k) => !opts.except!.has(k)) : batch.keys;
    if (keys.length === 0) continue;
    const redis = batch.node.redis;
    // UNLINK of several keys must stay within one slot in a cluster (else CROSSSLOT).
    const groups = store.clustered ? bySlot(keys) : [keys];
    try {
      removed += await removeGroups(redis, groups, unlink);
    } catch (err) {
      // Servers older than Redis 4 have no UNLINK.
      if (!unlink || !/unknown command/i.test((err as Error).message)) throw err;
      unlink = false;
      removed += await removeGroups(redis, groups, false);
    }
  }
  return { removed, stopped: opts.signal?.aborted === true };
}

/** How many keys are under `prefix`, scanning at most `maxScans` batches per node (then "at least"). */
export async function countPrefix(
  store: KeyStore,
  prefix: string,
  maxScans = 200,
): Promise<{ keys: number; complete: boolean }> {
  const match = `${escapeGlob(prefix)}*`;
  let keys = 0;
  let complete = true;
  for (const node of store.nodes()) {
    let cursor = '0';
    let scans = 0;
    do {
      if (scans++ >= maxScans) {
        complete = false;
        break;
      }
      const [next, found] = await node.redis.scan(cursor, 'MATCH', match, 'COUNT', SCAN_COUNT);
      cursor = next;
      keys += found.length;
    } while (cursor !== '0');
  }
  return { keys, complete };
}

async function removeGroups(
  redis: ControlPlane['redis'],
  groups: string[][],
  unlink: boolean,
): Promise<number> {
  if (groups.length === 1) {
    const g = groups[0]!;
    return unlink ? redis.unlink(...g) : redis.del(...g);
  }
  const pipeline = redis.pipeline();
  for (const g of groups) {
    if (unlink) pipeline.unlink(...g);
    else pipeline.del(...g);
  }
  let n = 0;
  for (const [err, count] of (await pipeline.exec()) ?? []) {
    if (err) throw err;
    n += Number(count);
  }
  return n;
}

function bySlot(keys: string[]): string[][] {
  const groups = new Map<number, string[]>();
  for (const k of keys) {
    const s = keySlot(k);
    const group = groups.get(s);
    if (group) group.push(k);
    else groups.set(s, [k]);
  }
  return [...groups.values()];
}
