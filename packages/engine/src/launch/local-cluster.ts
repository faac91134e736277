/**
 * A throwaway Redis Cluster of local redis-server processes on free loopback ports: for the tests,
 * the CLI's cluster test and the cluster benchmark script. Each node is a startServer() with
 * cluster-enabled; slots are assigned and nodes introduced by hand (CLUSTER ADDSLOTSRANGE, MEET,
 * REPLICATE) rather than by redis-cli --cluster create, so nothing but redis-server is needed.
 * Needs Redis 7.0+ (cluster-port, ADDSLOTSRANGE).
 */

import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { SLOT_COUNT } from '../cluster/slots.js';
import { clusterNodeConfig } from './args.js';
import { type LaunchedServer, startServer, stopServers } from './launch.js';
import { pickFreePort } from './ports.js';

export interface LocalClusterOptions {
  /** @default 3 */
  primaries?: number;
  /** Replicas in all, given to the primaries in turn. @default 0 */
  replicas?: number;
  /** @default 'redis-server' */
  bin?: string;
  /** Extra config lines for every node. */
  config?: string[];
  /** @default 30000 */
  timeoutMs?: number;
  /** Serve TLS only (clients, cluster bus and replication), with these PEM files. */
  tls?: { certFile: string; keyFile: string; caFile: string };
}

export interface LocalClusterNode {
  host: '127.0.0.1';
  port: number;
  id: string;
  role: 'primary' | 'replica';
  /** Inclusive slot range, for primaries. */
  slots: [number, number] | null;
  server: LaunchedServer;
}

export interface LocalCluster {
  nodes: LocalClusterNode[];
  primaries: LocalClusterNode[];
  /** Stop every node (SIGTERM, then SIGKILL) and remove their temp dirs; idempotent. */
  stop(): Promise<void>;
}

export class LocalClusterError extends Error {
  readonly code = 'ERR_LOCAL_CLUSTER';
}

export async function startLocalCluster(opts: LocalClusterOptions = {}): Promise<LocalCluster> {
  const primaries = opts.primaries ?? 3;
  const replicas = opts.replicas ?? 0;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  const servers: LaunchedServer[] = [];
  const clients: Redis[] = [];
  const stop = async () => {
    for (const c of clients.splice(0)) c.disconnect();
    await stopServers(servers.splice(0));
  };
  try {
    for (let i = 0; i < primaries + replicas; i++) {
      servers.push(
        await startServer({
          ...(opts.bin ? { bin: opts.bin } : {}),
          ...(opts.tls ? { tls: opts.tls } : {}),
          config: [...clusterNodeConfig(await pickFreePort(), Boolean(opts.tls)), ...(opts.config ?? [])],
        }),
      );
    }
    for (const s of servers) {
      const c = new Redis({
        host: s.host,
        port: s.port,
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        protocol: 2,
        ...(opts.tls ? { tls: { ca: readFileSync(opts.tls.caFile) } } : {}),
      });
      c.on('error', () => {});
      clients.push(c);
      await c.connect();
    }
    const ids = await Promise.all(clients.map((c) => c.call('CLUSTER', 'MYID') as Promise<string>));
    const nodes: LocalClusterNode[] = servers.map((server, i) => {
      const slots: [number, number] | null =
        i < primaries
          ? [Math.floor((i * SLOT_COUNT) / primaries), Math.floor(((i + 1) * SLOT_COUNT) / primaries) - 1]
          : null;
      return {
        host: '127.0.0.1',
        port: server.port,
        id: ids[i]!,
        role: i < primaries ? 'primary' : 'replica',
        slots,
        server,
      };
    });
    for (const n of nodes.slice(0, primaries))
      await clients[nodes.indexOf(n)]!.call(
        'CLUSTER',
        'ADDSLOTSRANGE',
        String(n.slots![0]),
        String(n.slots![1]),
      );
    for (let i = 1; i < nodes.length; i++) {
      const bus = (await clients[i]!.config('GET', 'cluster-port')) as string[];
      await clients[0]!.call('CLUSTER', 'MEET', '127.0.0.1', String(nodes[i]!.port), bus[1]!);
    }
    // Every node must know every other before a replica can name its primary.
    await until(deadline, 'every node to know every other', async () => {
      const views = await Promise.all(clients.map((c) => c.call('CLUSTER', 'NODES') as Promise<string>));
      return views.every((v) => v.trim().split('\n').length === nodes.length && !/handshake|noaddr/.test(v));
    });
    for (let r = 0; r < replicas; r++) {
      const replica = primaries + r;
      await clients[replica]!.call('CLUSTER', 'REPLICATE', nodes[r % primaries]!.id);
    }
    await until(deadline, 'cluster_state:ok on every node, with every slot served', async () => {
      const infos = await Promise.all(clients.map((c) => c.call('CLUSTER', 'INFO') as Promise<string>));
      return infos.every(
        (i) => /cluster_state:ok/.test(i) && new RegExp(`cluster_slots_ok:${SLOT_COUNT}`).test(i),
      );
    });
    // Every node must have heard (by gossip) that the replicas are replicas.
    await until(deadline, 'every node to see the replicas', async () => {
      const views = await Promise.all(clients.map((c) => c.call('CLUSTER', 'NODES') as Promise<string>));
      const flags = (v: string) =>
        v
          .trim()
          .split('\n')
          .map((line) => line.split(' ')[2] ?? '');
      return views.every((v) => flags(v).filter((f) => f.split(',').includes('slave')).length === replicas);
    });
    // A replica counts once it has synced: CLUSTER SLOTS leaves out replicas that have not.
    await until(deadline, 'every replica to sync with its primary', async () => {
      const infos = await Promise.all(clients.slice(primaries).map((c) => c.info('replication')));
      return infos.every((i) => /master_link_status:up/.test(i));
    });
    for (const c of clients.splice(0)) c.disconnect();
    return { nodes, primaries: nodes.slice(0, primaries), stop };
  } catch (err) {
    await stop();
    throw err instanceof LocalClusterError
      ? err
      : new LocalClusterError(`could not start a local cluster: ${(err as Error).message}`);
  }
}

async function until(deadline: number, what: string, cond: () => Promise<boolean>): Promise<void> {
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline) throw new LocalClusterError(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
