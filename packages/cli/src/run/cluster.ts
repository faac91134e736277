import type { Cluster } from '@redis-benchdb/result';

/** One status line: how many primaries and replicas, and their versions. */
export function describeCluster(c: Cluster): string {
  const primaries = c.nodes.filter((n) => n.role === 'primary');
  const replicas = c.nodes.length - primaries.length;
  const versions = [...new Set(c.nodes.map((n) => n.version ?? '?'))].join(', ');
  const serving = primaries.filter((n) => n.slots > 0).length;
  return `cluster: ${serving} primar${serving === 1 ? 'y' : 'ies'} serving ${c.slotsCovered} of 16384 slots${replicas ? `, ${replicas} replica${replicas === 1 ? '' : 's'}` : ''} (version ${versions}; from ${c.discoveredBy}); each request goes to its slot's primary`;
}
