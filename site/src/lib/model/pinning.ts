import { cpuSet } from '@redis-benchdb/result';

/**
 * How the server and the client shared the machine, in the words a verdict needs beside a machine
 * kind (issue 44, item 6): "2 vCPU" alone hides that the server ran on one of them and the client,
 * on the same host and the same CPU model, on the other. Read from the result's own
 * environment.client.numa (the CPU lists the runner pinned each to); nothing is said where a result
 * does not say it.
 */
export interface Pinning {
  serverCpus?: string | null;
  clientCpus?: string | null;
  threads: number | null;
}

const cpus = (n: number) => `${n} vCPU${n === 1 ? '' : 's'}`;

/** "server pinned to 1 of 2 vCPUs and the client to the other, on one host", or null when the result records no pinning. */
export function pinningWords(m: Pinning): string | null {
  const server = cpuSet(m.serverCpus ?? null);
  const client = cpuSet(m.clientCpus ?? null);
  if (!server && !client) return null;
  const share = (set: Set<number>) => (m.threads ? `${set.size} of ${cpus(m.threads)}` : cpus(set.size));
  if (!server) return `client pinned to ${share(client!)}, the server not pinned, on one host`;
  if (!client) return `server pinned to ${share(server)}, the client not pinned, on one host`;
  const rest = m.threads !== null && server.size + client.size === m.threads;
  const clientPart = rest
    ? client.size === 1
      ? 'the client to the other'
      : 'the client to the others'
    : `the client to ${cpus(client.size)}`;
  return `server pinned to ${share(server)} and ${clientPart}, on one host`;
}

/** The one pinning every view states, or a line that says they differ; null when none says any. */
export function commonPinning(all: readonly Pinning[]): string | null {
  const words = [...new Set(all.map(pinningWords))];
  if (words.length === 1) return words[0]!;
  return words.some((w) => w !== null) ? 'pinning differs between these results' : null;
}
