/**
 * Which primary each request goes to, decided per request without allocating. A request is
 * routed by its first argument, the key of every built-in test and of nearly every single-key
 * command: a key-space key (`prefix` + 12 digits) goes by a table of each key number's slot; a
 * fixed key (mylist, a custom command's literal) by its one slot; a command without arguments
 * (PING) round-robin over the primaries.
 */

import type { TestDefinition } from '../commands.js';
import { Rng } from '../keys.js';
import type { KeySource } from '../resp/request-template.js';
import type { ClusterPlan } from './control.js';
import { KeySlots, KeysBySlot, keySlot, SLOT_COUNT, SLOT_TABLE_MAX_KEYS } from './slots.js';

export class ClusterModeError extends Error {
  readonly code = 'ERR_CLUSTER_MODE';
}

/** How one test's requests are routed. */
export interface Route {
  /** Slots of the key-space key in the first argument; null when the first argument is fixed or absent. */
  keys: KeySlots | null;
  /** The slot of a fixed first argument; -1 with `keys`, or when there is none (round-robin). */
  slot: number;
  /** The request carries a key-space number (a key, or a member like SADD's): one is drawn per request. */
  drawsKey: boolean;
  /** Several key-space keys: all but the first are drawn from the first one's slot. */
  sameSlotKeys: KeysBySlot | null;
}

/**
 * Why a test cannot run in cluster mode, or null. A request with several key-space keys (MSET's
 * ten) must keep them in one slot, else the server answers CROSSSLOT. The runner draws the first
 * key by the key pattern and the others from the keys of the key space in the same slot, which
 * needs every such key in the first argument's form and a key space small enough for a slot table.
 */
export function clusterRefusal(test: TestDefinition, keyspaceSize: number): string | null {
  const keys = test.parts.filter((p) => p.kind === 'key');
  if (keys.length <= 1) return null;
  const first = test.parts[1];
  const same =
    first?.kind === 'key' &&
    keys.every((k) => k.kind === 'key' && k.text === first.text && k.prefixed === first.prefixed);
  if (!same)
    return `${test.name} has ${keys.length} key placeholders of different forms: in cluster mode a request's keys must share one slot, so every placeholder must read like the first argument (e.g. "MSET __key__ __data__ __key__ __data__")`;
  if (keyspaceSize > SLOT_TABLE_MAX_KEYS)
    return `${test.name} sends ${keys.length} keys per request: in cluster mode they are drawn from one slot, which needs a key space of at most ${SLOT_TABLE_MAX_KEYS} keys (-r); this cell has ${keyspaceSize}`;
  return null;
}

export function validateClusterTest(test: TestDefinition, keyspaceSize: number): void {
  const why = clusterRefusal(test, keyspaceSize);
  if (why) throw new ClusterModeError(why);
}

/** Built once per worker: the routes of its tests and the slot owners it learns from MOVED. */
export class ClusterRouting {
  readonly routes: Route[];
  /** Index into plan.primaries of each slot's owner; MOVED replies update it. */
  readonly owners = new Int32Array(SLOT_COUNT).fill(-1);
  private readonly byAddress = new Map<string, number>();

  constructor(
    readonly plan: ClusterPlan,
    tests: readonly TestDefinition[],
    prefix: string,
    keyspaceSize: number,
  ) {
    for (const [a, b, i] of plan.ranges) this.owners.fill(i, a, b + 1);
    plan.primaries.forEach((p, i) => {
      this.byAddress.set(`${p.host}:${p.port}`, i);
    });
    const tables = new Map<string, KeySlots>();
    this.routes = tests.map((t) => {
      validateClusterTest(t, keyspaceSize);
      const drawsKey = !t.inline && t.parts.some((p) => p.kind === 'key');
      const first = t.inline ? undefined : t.parts[1];
      if (first?.kind === 'key') {
        const keyPrefix = first.prefixed ? prefix + first.text : first.text;
        let keys = tables.get(keyPrefix);
        if (!keys) {
          keys = new KeySlots(Buffer.from(keyPrefix), keyspaceSize);
          tables.set(keyPrefix, keys);
        }
        const multi = t.parts.filter((p) => p.kind === 'key').length > 1;
        const sameSlotKeys = multi && keys.table ? new KeysBySlot(keys.table) : null;
        return { keys, slot: -1, drawsKey, sameSlotKeys };
      }
      if (first?.kind === 'fixedKey')
        return { keys: null, slot: keySlot(prefix + first.text), drawsKey, sameSlotKeys: null };
      if (first?.kind === 'literal')
        return { keys: null, slot: keySlot(first.text), drawsKey, sameSlotKeys: null };
      return { keys: null, slot: -1, drawsKey, sameSlotKeys: null };
    });
  }

  /** The primary named by a MOVED/ASK reply (`host:port`; an empty host is the node's own), or -1. */
  nodeIndex(address: string, fallbackHost: string): number {
    const colon = address.lastIndexOf(':');
    const host = colon > 0 ? address.slice(0, colon) : fallbackHost;
    return this.byAddress.get(`${host}:${address.slice(colon + 1)}`) ?? -1;
  }
}

/**
 * The key numbers of one request, given to a template's encode(): the drawn key first, then,
 * for a multi-key request, keys of the same slot. One per connection, reset per request.
 */
export class RequestKeys implements KeySource {
  private first = 0;
  private calls = 0;
  private lo = 0;
  private span = 0;
  private group: KeysBySlot | null = null;
  private readonly rng: Rng;

  constructor(seed: number) {
    this.rng = new Rng(seed);
  }

  reset(key: number, route: Route, slot: number): void {
    this.first = key;
    this.calls = 0;
    const g = route.sameSlotKeys;
    this.group = g;
    if (g !== null) {
      this.lo = g.start[slot]!;
      this.span = g.start[slot + 1]! - this.lo;
    }
  }

  nextKey(): number {
    if (this.calls++ === 0 || this.group === null || this.span === 0) return this.first;
    return this.group.keys[this.lo + this.rng.nextInt(this.span)]!;
  }
}
