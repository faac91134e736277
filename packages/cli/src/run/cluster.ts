import type { Cluster } from '@redis-benchdb/result';
import { CliError, EXIT_USAGE } from '../errors.js';
import type { RunFlags } from './parse-options.js';

/** --cluster against flags it cannot work with, refused before anything starts. */
export function checkClusterFlags(f: RunFlags): void {
  if (!f.cluster) return;
  const usage = (msg: string) => new CliError(msg, 'ERR_USAGE', EXIT_USAGE);
  if (f.socket !== undefined)
    throw usage(
      '--cluster needs a TCP address of any node (-h/-p): drop -s, the nodes are reached at the addresses the cluster announces',
    );
  if (f.dbnum !== undefined && Number(f.dbnum) !== 0)
    throw usage(`a cluster serves database 0 only: drop --dbnum ${f.dbnum}`);
  if (f.serverBin !== undefined)
    throw usage('--cluster measures a running cluster: drop --server-bin (it launches standalone servers)');
}

/** One status line: how many primaries and replicas, and their versions. */
export function describeCluster(c: Cluster): string {
  const primaries = c.nodes.filter((n) => n.role === 'primary');
  const replicas = c.nodes.length - primaries.length;
  const versions = [...new Set(c.nodes.map((n) => n.version ?? '?'))].join(', ');
  const serving = primaries.filter((n) => n.slots > 0).length;
  return `cluster: ${serving} primar${serving === 1 ? 'y' : 'ies'} serving ${c.slotsCovered} of 16384 slots${replicas ? `, ${replicas} replica${replicas === 1 ? '' : 's'}` : ''} (version ${versions}; from ${c.discoveredBy}); each request goes to its slot's primary`;
}
