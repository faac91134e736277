import {
  type Cluster,
  type ClusterNode,
  cleanNullableText,
  cleanText,
  TEXT_MAX,
} from '@redis-benchdb/result';
import { ControlPlane } from '../control.js';
import type { Target } from '../options.js';
import { keySlot, SLOT_COUNT } from './slots.js';
import {
  type ClusterNodeInfo,
  ClusterTopologyError,
  type DiscoveredTopology,
  discoverTopology,
  slotOwners,
} from './topology.js';

/** What a worker needs to route: the primaries' addresses, and which of them owns each slot range. */
export interface ClusterPlan {
  primaries: { host: string; port: number }[];
  /** [first slot, last slot, index into primaries]. */
  ranges: [number, number, number][];
}

type CommandStats = Awaited<ReturnType<ControlPlane['commandStats']>>;
type CpuSeconds = Awaited<ReturnType<ControlPlane['cpuSeconds']>>;

/**
 * The control plane of a cluster: one ioredis connection per primary, for what is not measured.
 * INFO commandstats is summed over the primaries (the cross-check), and the server CPU reported
 * per primary (the saturation of a cell is its busiest primary's). Cleanup scans every primary.
 */
export class ClusterControl {
  private primaries: { info: ClusterNodeInfo; control: ControlPlane }[] = [];
  private owners: Int32Array = new Int32Array(SLOT_COUNT).fill(-1);
  /** The cluster as first discovered, for the result. */
  topology!: Cluster;

  private constructor(
    private readonly target: Target,
    private readonly seed: ControlPlane,
    private readonly prefer: 'shards' | 'slots' | undefined,
  ) {}

  static async open(
    target: Target,
    seed: ControlPlane,
    opts: { prefer?: 'shards' | 'slots' } = {},
  ): Promise<ClusterControl> {
    const c = new ClusterControl(target, seed, opts.prefer);
    try {
      const found = await c.refresh();
      c.topology = await describe(found, target, c.primaries);
    } catch (err) {
      await c.close();
      throw err;
    }
    return c;
  }

  /** Read the slots again (before each cell: a resharding between cells must not cost MOVED). */
  async refresh(): Promise<DiscoveredTopology> {
    const found = await discoverTopology((...a) => this.seed.redis.call(a[0]!, ...a.slice(1)), {
      seedHost: this.target.host,
      tls: Boolean(this.target.tls),
      ...(this.prefer ? { prefer: this.prefer } : {}),
    });
    const { primaries, owners } = slotOwners(found.nodes);
    if (!primaries.some((p) => p.slotRanges.length > 0))
      throw new ClusterTopologyError(
        'the cluster has no primary serving slots: assign slots first (redis-cli --cluster create ...)',
      );
    const old = new Map(this.primaries.map((p) => [address(p.info), p.control]));
    const next: typeof this.primaries = [];
    for (const info of primaries) {
      const control = old.get(address(info)) ?? (await ControlPlane.connect(nodeTarget(this.target, info)));
      old.delete(address(info));
      next.push({ info, control });
    }
    for (const c of old.values()) await c.close();
    this.primaries = next;
    this.owners = owners;
    return found;
  }

  plan(): ClusterPlan {
    const ranges: [number, number, number][] = [];
    this.primaries.forEach((p, i) => {
      for (const [a, b] of p.info.slotRanges) ranges.push([a, b, i]);
    });
    return { primaries: this.primaries.map((p) => ({ host: p.info.host, port: p.info.port })), ranges };
  }

  /** The control connection of the primary that serves `key`. */
  forKey(key: string): ControlPlane {
    const owner = this.owners[keySlot(key)]!;
    if (owner < 0)
      throw new ClusterTopologyError(
        `no primary serves the slot of ${key} (slot ${keySlot(key)}): the cluster is not fully covered`,
      );
    return this.primaries[owner]!.control;
  }

  /** INFO commandstats summed over every primary. */
  async commandStats(): Promise<CommandStats> {
    const sum: CommandStats = new Map();
    for (const stats of await Promise.all(this.primaries.map((p) => p.control.commandStats()))) {
      for (const [name, s] of stats) {
        const acc = sum.get(name) ?? { calls: 0, rejectedCalls: 0, failedCalls: 0 };
        acc.calls += s.calls;
        acc.rejectedCalls += s.rejectedCalls;
        acc.failedCalls += s.failedCalls;
        sum.set(name, acc);
      }
    }
    return sum;
  }

  /** Summed CPU, and each primary's in `nodes`, so that a cell's saturation can be its busiest node's. */
  async cpuSeconds(): Promise<CpuSeconds & { nodes: CpuSeconds[] }> {
    const nodes = await Promise.all(this.primaries.map((p) => p.control.cpuSeconds()));
    const main = nodes.every((n) => n.mainThread !== null)
      ? nodes.reduce((a, n) => a + n.mainThread!, 0)
      : null;
    return { total: nodes.reduce((a, n) => a + n.total, 0), mainThread: main, nodes };
  }

  /** As a KeyStore (prefix-keys.ts): a run's keys are on every primary; cleanup scans each. */
  readonly clustered = true;
  nodes(): ControlPlane[] {
    return this.primaries.map((p) => p.control);
  }

  async close(): Promise<void> {
    await Promise.all(this.primaries.map((p) => p.control.close()));
    this.primaries = [];
  }
}

function address(n: { host: string; port: number }): string {
  return `${n.host}:${n.port}`;
}

function nodeTarget(t: Target, n: { host: string; port: number }): Target {
  // Cluster nodes serve db 0 only, and are reached by the address the cluster announces.
  const { socket: _socket, ...rest } = t;
  return { ...rest, host: n.host, port: n.port, db: 0 };
}

/** The topology block of the result, with each node's version from INFO server. */
async function describe(
  found: DiscoveredTopology,
  target: Target,
  primaries: { info: ClusterNodeInfo; control: ControlPlane }[],
): Promise<Cluster> {
  const connected = new Map(primaries.map((p) => [address(p.info), p.control]));
  const covered = new Set<number>();
  const nodes: ClusterNode[] = [];
  for (const n of found.nodes) {
    if (n.role === 'primary') for (const [a, b] of n.slotRanges) for (let s = a; s <= b; s++) covered.add(s);
    nodes.push({
      id: n.id,
      role: n.role,
      // What the nodes announce is recorded as free text: cleaned like the probes' (see probe/clean.ts).
      host: cleanText(n.host, TEXT_MAX.host),
      port: n.port,
      primaryId: n.primaryId,
      slotRanges: n.slotRanges.length,
      slots: n.slotRanges.reduce((a, [s, e]) => a + e - s + 1, 0),
      version: cleanNullableText(
        await nodeVersion(connected.get(address(n)), target, n),
        TEXT_MAX.clusterNodeVersion,
      ),
      health: cleanNullableText(n.health, TEXT_MAX.clusterNodeHealth),
    });
  }
  return { discoveredBy: found.discoveredBy, slotsCovered: covered.size, nodes };
}

async function nodeVersion(
  control: ControlPlane | undefined,
  target: Target,
  n: ClusterNodeInfo,
): Promise<string | null> {
  let own: ControlPlane | null = null;
  try {
    if (!control) own = await ControlPlane.connect(nodeTarget(target, n));
    const info = await (control ?? own!).info('server');
    return info.valkey_version ?? info.redis_version ?? null;
  } catch {
    return null;
  } finally {
    await own?.close();
  }
}
