import type {
  ConnectionCounters,
  ConnectionHost,
  MeasuredConnection,
  SocketOptions,
} from '../load/connection.js';
import type { Workload } from '../load/workload.js';
import { NodeSocket, type NodeSocketOwner } from './node-socket.js';
import { type ClusterRouting, RequestKeys } from './routing.js';

/** A request redirected more often than this is answered with its last MOVED/ASK, as an error. */
export const MAX_REDIRECTS = 16;

/**
 * One of the cell's connections, in cluster mode: a socket to every primary, and each request
 * written to the socket of its slot's primary, in the order the key pattern draws them. The
 * driver gives the connection a window of P x primaries (ClusterRouting.depthFactor), so each
 * primary sees `-c` sockets of about P requests in flight, as one server sees `-c -P` (and as
 * memtier_benchmark's per-shard pipelines do): `-c 50 -P 16` on 3 primaries keeps 2,400 in flight.
 */
export class ClusterConnection implements MeasuredConnection, NodeSocketOwner {
  inFlight = 0;
  nextIntendedMs = Number.POSITIVE_INFINITY;
  moved = 0;
  ask = 0;
  readonly nodes: NodeSocket[];
  private readonly keys: RequestKeys;
  private readonly intended: Float64Array | null;
  private roundRobin: number;

  constructor(
    private readonly host: ConnectionHost,
    private readonly workload: Workload,
    private readonly routing: ClusterRouting,
    depth: number,
    openLoop: boolean,
    index: number,
    seed: number,
  ) {
    this.nodes = routing.plan.primaries.map((a) => new NodeSocket(this, workload, depth, openLoop, a));
    this.keys = new RequestKeys(seed);
    this.intended = openLoop ? new Float64Array(depth) : null;
    this.roundRobin = index % this.nodes.length;
  }

  /** Connect to every primary and run the handshake on each; names the node on failure. */
  async open(opts: SocketOptions, handshake: Buffer[], readBuffer: Buffer): Promise<void> {
    await Promise.all(
      this.nodes.map(async (n) => {
        try {
          await n.connect(opts, readBuffer);
        } catch (err) {
          throw new Error(`cannot connect to cluster node ${n.describe()}: ${(err as Error).message}`);
        }
        await n.handshake(handshake).catch((err: Error) => {
          throw Object.assign(err, { node: n.describe() });
        });
      }),
    );
  }

  send(n: number): void {
    const w = this.workload;
    const routes = this.routing.routes;
    const owners = this.routing.owners;
    const nodes = this.nodes;
    const keys = this.keys;
    const intended = this.intended;
    for (let i = 0; i < n; i++) {
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
      keys.reset(key, route, slot);
      nodes[node]!.append(t, key, keys, intended === null ? 0 : intended[i]!);
    }
    const now = performance.now();
    for (let i = 0; i < nodes.length; i++) nodes[i]!.flush(now);
    this.inFlight += n;
  }

  /** Open loop: as LoadConnection.sendDue, each request keeping its intended time wherever it goes. */
  sendDue(now: number, limit: number, budget: number): number {
    let n = 0;
    const room = Math.min(limit - this.inFlight, budget);
    const intended = this.intended!;
    while (n < room && this.nextIntendedMs <= now) {
      intended[n] = this.nextIntendedMs;
      this.nextIntendedMs += this.workload.nextIntervalMs();
      n++;
    }
    if (n > 0) this.send(n);
    return n;
  }

  onNodeReplies(completed: number, now: number): void {
    this.inFlight -= completed;
    this.host.onReplies(this, completed, now);
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
    let nils = 0;
    let bytesIn = 0;
    let bytesOut = 0;
    for (const n of this.nodes) {
      for (const [k, v] of n.reader.errorsByType) errors.set(k, (errors.get(k) ?? 0) + v);
      completed += n.reader.replies - n.nonRequestReplies;
      nils += n.reader.nils;
      bytesIn += n.bytesIn;
      bytesOut += n.bytesOut;
    }
    return { completed, nils, errors, bytesIn, bytesOut, moved: this.moved, ask: this.ask };
  }
}
