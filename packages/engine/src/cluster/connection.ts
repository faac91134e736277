// The module's binding, not the global: Node 20's global `performance` is a lazy getter that a
// profile of the P16 path showed at 1% of the client's CPU, read on every send and every read.
import { performance } from 'node:perf_hooks';
import type {
  ConnectionCounters,
  ConnectionFactory,
  ConnectionHost,
  MeasuredConnection,
  ReplyGap,
  ReplyWait,
} from '../load/measured-connection.js';
import type { LoadPlan } from '../load/plan.js';
import { HandshakeFailure } from '../load/reply-socket.js';
import type { SocketOptions } from '../load/socket-options.js';
import type { Workload } from '../load/workload.js';
import type { ClusterPlan } from './control.js';
import { NodeSocket, type NodeSocketOwner } from './node-socket.js';
import { PendingPool } from './pending-pool.js';
import { ClusterRouting, RequestKeys } from './routing.js';

/** A request redirected more often than this is answered with its last MOVED/ASK, as an error. */
export const MAX_REDIRECTS = 16;

/** How many requests, in multiples of P, may wait in a node's pending pool beyond what its room takes. */
export const POOL_DEPTHS = 4;

/**
 * Connections to a cluster, routed by `cluster` (the primaries and their slots, read before the
 * cell). Throws a ClusterModeError for a test that cannot run in cluster mode.
 */
export function clusterConnections(plan: LoadPlan, cluster: ClusterPlan): ConnectionFactory {
  const routing = new ClusterRouting(cluster, plan.tests, plan.prefix, plan.keyspaceSize);
  const window = plan.pipelineMode === 'window';
  const openLoop = plan.rateOpsPerSec !== null;
  return {
    followsRedirects: true,
    create: (host, workload, i) => {
      const seed = plan.seed * 31 + plan.workerIndex * 1_000_003 + i;
      return new ClusterConnection(host, workload, routing, plan.pipelineDepth, window, openLoop, i, seed);
    },
  };
}

/**
 * One of the cell's connections, in cluster mode: a socket to every primary, each its own
 * pipeline of depth P (window, or batch: P, then wait for those P), as memtier_benchmark's
 * per-shard pipelines. So each primary sees `-c` sockets of P requests in flight, as one server
 * sees `-c -P`: `-c 50 -P 16` on 3 primaries keeps up to 2,400 in flight.
 *
 * Keys are drawn from the key pattern in one stream, as against one server, and each request
 * goes to its slot's primary. When that primary's pipeline is full, the request waits in the
 * primary's pending pool (FIFO) and is sent first when the primary has room. When a pool fills,
 * drawing stops until that primary answers, even though other primaries have room: every drawn
 * key is sent, in the order drawn, so the pattern's distribution over keys (and over primaries)
 * is what the servers see. Drawing on for the idle primaries instead would have to skip the keys
 * of the busy one (flattening a skewed pattern, whose hot shard must stay hot) or queue them
 * without bound. memtier_benchmark's cluster client keeps per-shard key pools for the same reason.
 */
export class ClusterConnection implements MeasuredConnection, NodeSocketOwner {
  nextIntendedMs = Number.POSITIVE_INFINITY;
  moved = 0;
  ask = 0;
  readonly nodes: NodeSocket[];
  readonly pools: PendingPool[];
  /** Each node's room in the current pump. */
  private readonly room: Int32Array;
  private readonly keys: RequestKeys;
  private readonly batch: boolean;
  private roundRobin: number;
  /** The last pump stopped drawing at a full pool: replies, not the open loop's timer, must wake it. */
  private blocked = false;
  /** Open loop: when a reply last let a blocked draw go on (a request due before then waited on a server). */
  private drawSinceMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly host: ConnectionHost,
    private readonly workload: Workload,
    private readonly routing: ClusterRouting,
    /** P: the pipeline depth of each node socket. */
    private readonly depth: number,
    window: boolean,
    private readonly openLoop: boolean,
    index: number,
    seed: number,
  ) {
    const primaries = routing.plan.primaries;
    const connectionDepth = depth * primaries.length;
    this.nodes = primaries.map(
      (a, i) => new NodeSocket(this, workload, i, depth, connectionDepth, openLoop, a),
    );
    // A pool holds what a node's room takes in this pump, and up to POOL_DEPTHS x P waiting beyond it.
    this.pools = primaries.map(() => new PendingPool((POOL_DEPTHS + 1) * depth, openLoop));
    this.room = new Int32Array(primaries.length);
    this.keys = new RequestKeys(seed);
    // The open loop keeps a window per node: a request leaves when its time has come and there is room.
    this.batch = !window && !openLoop;
    this.roundRobin = index % this.nodes.length;
  }

  /** Connect to every primary and run the handshake on each; names the node on failure. */
  async open(opts: SocketOptions, handshake: Buffer[], readBuffer: Buffer): Promise<void> {
    // Cluster nodes are reached by the address the cluster announces, with the target's TLS.
    const tls = opts.tls ? { tls: opts.tls } : {};
    await Promise.all(
      this.nodes.map(async (n) => {
        try {
          await n.connect({ ...n.address, ...tls }, readBuffer);
        } catch (err) {
          throw new Error(`cannot connect to cluster node ${n.server}: ${(err as Error).message}`);
        }
        await n.handshake(handshake).catch((err: Error) => {
          if (err instanceof HandshakeFailure) err.where = `cluster node ${n.server}`;
          throw err;
        });
      }),
    );
  }

  fill(budget: number): number {
    return this.pump(budget, 0);
  }

  /** Open loop: as fill, drawing only requests whose intended time has come; each keeps its intended time. */
  sendDue(now: number, budget: number): number {
    return this.pump(budget, now);
  }

  nextWakeMs(): number {
    return this.blocked ? Number.POSITIVE_INFINITY : this.nextIntendedMs;
  }

  /**
   * Draw new requests into the nodes' pending pools (closed loop: until every node with room has
   * enough to fill it; open loop: while one is due), at most `budget`, stopping when a node's pool
   * holds POOL_DEPTHS x P beyond its room; then send each node what its room takes, one write per
   * node. Returns how many were drawn: those still pending were counted when they were drawn.
   */
  private pump(budget: number, now: number): number {
    const nodes = this.nodes;
    const pools = this.pools;
    const room = this.room;
    const depth = this.depth;
    const spare = POOL_DEPTHS * depth;
    let wanting = 0;
    let blocked = false;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      let r = this.batch ? (node.inFlight === 0 ? depth : 0) : depth - node.inFlight;
      if (r < 0) r = 0;
      room[i] = r;
      const queued = pools[i]!.length;
      if (queued < r) wanting++;
      else if (queued >= r + spare) blocked = true;
    }
    let drawn = 0;
    const w = this.workload;
    const routes = this.routing.routes;
    const owners = this.routing.owners;
    const openLoop = this.openLoop;
    while (!blocked && drawn < budget && (openLoop ? this.nextIntendedMs <= now : wanting > 0)) {
      drawn++;
      let intended = 0;
      if (openLoop) {
        intended = this.nextIntendedMs;
        this.nextIntendedMs += w.nextIntervalMs();
      }
      const t = w.nextTemplateIndex();
      const route = routes[t]!;
      const key = route.drawsKey ? w.keys.nextKey() : 0;
      let node: number;
      let slot = route.slot;
      if (route.keys !== null) slot = route.keys.slotOf(key);
      if (slot >= 0) {
        node = owners[slot]!;
        // An uncovered slot: any node answers with the redirect or CLUSTERDOWN error.
        if (node < 0) node = 0;
      } else {
        node = this.roundRobin;
        this.roundRobin = node + 1 === nodes.length ? 0 : node + 1;
      }
      const pool = pools[node]!;
      pool.push(t, key, slot, intended);
      const queued = pool.length;
      const r = room[node]!;
      if (queued === r) wanting--;
      else if (queued >= r + spare) blocked = true;
    }
    this.blocked = blocked;
    // Every request is encoded here, from its pool entry: with a second call site of append in
    // the draw loop, V8 stopped inlining the key digits' encoding (bench/hot-path.mjs, cluster).
    const keys = this.keys;
    let sent = 0;
    for (let i = 0; i < nodes.length; i++) {
      const pool = pools[i]!;
      const take = Math.min(room[i]!, pool.length);
      if (take === 0) continue;
      const node = nodes[i]!;
      const { templates, keys: keyOf, slots, intended, mask } = pool;
      let e = pool.head;
      for (let j = 0; j < take; j++) {
        const t = templates[e]!;
        const key = keyOf[e]!;
        keys.reset(key, routes[t]!, slots[e]!);
        node.append(t, key, keys, intended === null ? 0 : intended[e]!);
        e = (e + 1) & mask;
      }
      pool.drop(take);
      sent += take;
    }
    if (sent > 0) {
      const sentAt = performance.now();
      for (let i = 0; i < nodes.length; i++) nodes[i]!.flush(sentAt, this.drawSinceMs);
    }
    return drawn;
  }

  discardPending(): number {
    let n = 0;
    for (const pool of this.pools) {
      n += pool.length;
      pool.clear();
    }
    this.blocked = false;
    return n;
  }

  onNodeReplies(completed: number, now: number): void {
    // A reply may empty the full pool that stopped the draw: requests due meanwhile waited on a server.
    if (this.blocked) this.drawSinceMs = now;
    this.host.onReplies(this, completed, now);
  }

  release(home: number, now: number): void {
    this.nodes[home]!.freed(1, now);
  }

  redirect(from: NodeSocket, message: string, entry: number): boolean {
    if (from.redirectsOf[entry]! >= MAX_REDIRECTS) return false;
    // "MOVED 3999 127.0.0.1:6381" / "ASK 3999 127.0.0.1:6381"
    const parts = message.split(' ');
    const slot = Number(parts[1]);
    const target = this.routing.nodeIndex(parts[2] ?? '', from.address.host);
    if (target < 0 || !(slot >= 0)) {
      this.host.abort(
        `the cluster redirected a request to ${parts[2]}, a node that was not an online primary when the cell began (${message}): the cluster changed shape mid-cell; run again (each cell reads the slots anew)`,
      );
      return false;
    }
    const asking = parts[0] === 'ASK';
    if (asking) this.ask++;
    else {
      this.moved++;
      // MOVED: the slot has a new owner for every later request; ASK is for this one request only.
      this.routing.owners[slot] = target;
    }
    const template = from.templateOf[entry]!;
    this.keys.reset(from.keyOf[entry]!, this.routing.routes[template]!, slot);
    this.nodes[target]!.resend(from, entry, this.keys, asking);
    return true;
  }

  onNodeLost(err: Error): void {
    this.host.onConnectionLost(this, err);
  }

  close(): void {
    for (const n of this.nodes) n.close();
  }

  counters(): ConnectionCounters {
    const errors = new Map<string, number>();
    let completed = 0;
    let bytesIn = 0;
    let bytesOut = 0;
    let errorExample = '';
    let wrongTypes = 0;
    let firstWrongType = 0;
    for (const n of this.nodes) {
      for (const [k, v] of n.reader.errorsByType) errors.set(k, (errors.get(k) ?? 0) + v);
      if (errorExample === '') errorExample = n.reader.firstError;
      if (firstWrongType === 0) firstWrongType = n.reader.firstWrongType;
      wrongTypes += n.reader.wrongTypes;
      completed += n.reader.replies - n.nonRequestReplies;
      bytesIn += n.bytesIn;
      bytesOut += n.bytesOut;
    }
    return {
      completed,
      errors,
      bytesIn,
      bytesOut,
      moved: this.moved,
      ask: this.ask,
      errorExample,
      wrongTypes,
      firstWrongType,
    };
  }

  /** Each primary has its own socket: one that stopped answering is found even while the others flow. */
  longestWait(): ReplyWait | null {
    let oldest: NodeSocket | null = null;
    for (const n of this.nodes)
      if (n.outstanding() > 0 && (oldest === null || n.progressMs < oldest.progressMs)) oldest = n;
    return oldest === null
      ? null
      : {
          sinceMs: oldest.progressMs,
          outstanding: oldest.outstanding(),
          server: `cluster node ${oldest.server}`,
        };
  }

  longestGap(): ReplyGap {
    let best = { gapMs: 0, endMs: 0 };
    for (const n of this.nodes) {
      const gap = n.longestGap();
      if (gap.gapMs > best.gapMs) best = gap;
    }
    return best;
  }
}
