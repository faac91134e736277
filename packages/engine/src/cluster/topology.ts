/**
 * Discovering a cluster's shape from one node: CLUSTER SHARDS (Redis 7.0+) where the server has
 * it, else CLUSTER SLOTS (Redis 3.0+). The replies are parsed from ioredis's RESP2 arrays.
 */

import { SLOT_COUNT } from './slots.js';

export type NodeRole = 'primary' | 'replica';

export interface ClusterNodeInfo {
  /** The 40-hex node id; null when the server does not give it (CLUSTER SLOTS before Redis 4). */
  id: string | null;
  role: NodeRole;
  host: string;
  port: number;
  /** For a replica, its primary's id. */
  primaryId: string | null;
  /** Slot ranges [start, end] (inclusive) the node serves; replicas: their primary's. */
  slotRanges: [number, number][];
  /** CLUSTER SHARDS's health (online, failed, loading); null from CLUSTER SLOTS. */
  health: string | null;
}

export interface DiscoveredTopology {
  discoveredBy: 'CLUSTER SHARDS' | 'CLUSTER SLOTS';
  nodes: ClusterNodeInfo[];
}

export class ClusterTopologyError extends Error {
  readonly code = 'ERR_CLUSTER_TOPOLOGY';
}

/** Whatever sends a command and returns ioredis's reply: `(...a) => redis.call(...a)`. */
export type Call = (...args: string[]) => Promise<unknown>;

/**
 * Ask the node for the cluster's slots. `seedHost` replaces an endpoint the node does not know
 * (`?` or empty: the node is reachable at the address the client used); `tls` picks tls-port.
 */
export async function discoverTopology(
  call: Call,
  opts: { seedHost: string; tls: boolean; prefer?: 'shards' | 'slots' },
): Promise<DiscoveredTopology> {
  if (opts.prefer !== 'slots') {
    try {
      return { discoveredBy: 'CLUSTER SHARDS', nodes: parseShards(await call('CLUSTER', 'SHARDS'), opts) };
    } catch (err) {
      const msg = (err as Error).message;
      // Older servers answer "unknown subcommand"; anything else is a real failure.
      if (!/unknown subcommand|unknown command|syntax error/i.test(msg)) throw explain(msg);
    }
  }
  try {
    return { discoveredBy: 'CLUSTER SLOTS', nodes: parseSlots(await call('CLUSTER', 'SLOTS'), opts) };
  } catch (err) {
    throw explain((err as Error).message);
  }
}

function explain(msg: string): ClusterTopologyError {
  if (/cluster support disabled|cluster mode is not enabled/i.test(msg))
    return new ClusterTopologyError(
      `the server is not a cluster node (${msg}): drop --cluster, or point -h/-p at a node of the cluster`,
    );
  return new ClusterTopologyError(`cannot read the cluster's slots: ${msg}`);
}

/** A flat RESP2 map [k1, v1, k2, v2...] as an object. */
function flatMap(a: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(a)) return out;
  for (let i = 0; i + 1 < a.length; i += 2) out[String(a[i])] = a[i + 1];
  return out;
}

function endpoint(fields: Record<string, unknown>, seedHost: string): string {
  for (const k of ['endpoint', 'ip']) {
    const v = fields[k];
    if (typeof v === 'string' && v !== '' && v !== '?') return v;
  }
  return seedHost;
}

export function parseShards(reply: unknown, opts: { seedHost: string; tls: boolean }): ClusterNodeInfo[] {
  if (!Array.isArray(reply)) throw new ClusterTopologyError('CLUSTER SHARDS: expected an array');
  const nodes: ClusterNodeInfo[] = [];
  for (const shardReply of reply) {
    const shard = flatMap(shardReply);
    const flat = (shard.slots as unknown[] | undefined) ?? [];
    const ranges: [number, number][] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) ranges.push([Number(flat[i]), Number(flat[i + 1])]);
    const members = ((shard.nodes as unknown[] | undefined) ?? []).map(flatMap);
    const primary = members.find((m) => m.role === 'master' || m.role === 'primary');
    for (const m of members) {
      const isPrimary = m === primary;
      const port = Number(opts.tls ? (m['tls-port'] ?? m.port) : (m.port ?? m['tls-port']));
      nodes.push({
        id: typeof m.id === 'string' ? m.id : null,
        role: isPrimary ? 'primary' : 'replica',
        host: endpoint(m, opts.seedHost),
        port,
        primaryId: isPrimary ? null : typeof primary?.id === 'string' ? primary.id : null,
        slotRanges: ranges,
        health: typeof m.health === 'string' ? m.health : null,
      });
    }
  }
  return nodes;
}

export function parseSlots(reply: unknown, opts: { seedHost: string }): ClusterNodeInfo[] {
  if (!Array.isArray(reply)) throw new ClusterTopologyError('CLUSTER SLOTS: expected an array');
  const byAddress = new Map<string, ClusterNodeInfo>();
  for (const entry of reply as unknown[][]) {
    const [start, end, ...members] = entry;
    (members as unknown[][]).forEach((m, i) => {
      const host = typeof m[0] === 'string' && m[0] !== '' && m[0] !== '?' ? m[0] : opts.seedHost;
      const port = Number(m[1]);
      const key = `${host}:${port}`;
      let node = byAddress.get(key);
      if (!node) {
        node = {
          id: typeof m[2] === 'string' ? m[2] : null,
          role: i === 0 ? 'primary' : 'replica',
          host,
          port,
          primaryId: null,
          slotRanges: [],
          health: null,
        };
        byAddress.set(key, node);
      }
      node.slotRanges.push([Number(start), Number(end)]);
      if (i > 0) {
        const p = members[0] as unknown[];
        node.primaryId = typeof p[2] === 'string' ? p[2] : null;
      }
    });
  }
  return [...byAddress.values()];
}

/**
 * The primaries the load may reach, and which of them owns each slot (-1: none). An online
 * primary without slots is included: it is where a scale-out moves slots to, so its MOVED and
 * ASK replies must find a socket already open.
 */
export function slotOwners(nodes: readonly ClusterNodeInfo[]): {
  primaries: ClusterNodeInfo[];
  owners: Int32Array;
} {
  const primaries = nodes.filter(
    (n) => n.role === 'primary' && (n.slotRanges.length > 0 || n.health === 'online'),
  );
  const owners = new Int32Array(SLOT_COUNT).fill(-1);
  primaries.forEach((p, i) => {
    for (const [a, b] of p.slotRanges) owners.fill(i, a, b + 1);
  });
  return { primaries, owners };
}
