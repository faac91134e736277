/**
 * Environment warnings: conditions the Redis benchmarking and latency docs name as changing the
 * numbers. A warning does not invalidate a result; it tells a reader what the result may be
 * compared with. One sentence each, saying what was seen and why it matters.
 *
 * Only the client machine is probed: host-level conditions (VM, THP, swap, governor) are about the
 * client's host, and about the server's only when both share it (loopback or unix socket).
 */

import { ioThreadsOverCpus } from '@redis-benchdb/result';
import type { Link, Machine, Server, Warning } from './types.js';

export interface WarningEnvironment {
  client: Machine;
  server: Server;
  link: Pick<Link, 'kind'> & Partial<Pick<Link, 'sameHost'>>;
}

export function environmentWarnings(env: WarningEnvironment): Warning[] {
  const { client, server, link } = env;
  const shared = link.kind === 'tcp-loopback' || link.kind === 'unix' || link.sameHost === true;
  const where = shared
    ? 'this host (client and server share it)'
    : 'the client machine (the server host was not probed)';
  const out: Warning[] = [];
  const add = (code: Warning['code'], message: string) => out.push({ code, message, cell: null });

  const kind = client.virtualization.kind;
  if (kind === 'vm' || kind === 'vm+container') {
    const hv = client.virtualization.hypervisor ? ` (${client.virtualization.hypervisor})` : '';
    add(
      'VM',
      `The client runs in a virtual machine${hv}: Redis is slower and its latency less stable under a hypervisor than on the same hardware without one, so compare only with results from similar VMs.`,
    );
  }
  if (kind === 'container' || kind === 'vm+container') {
    const rt = client.virtualization.container ? ` (${client.virtualization.container})` : '';
    add(
      'CONTAINER',
      `The client runs in a container${rt}: CPU quotas, cgroup limits and the container network can throttle or delay it, so results may differ from the same machine without one.`,
    );
  }
  if (client.thp.enabled === 'always') {
    add(
      'THP_ALWAYS',
      `Transparent huge pages are set to 'always' on ${where}: Redis then suffers large latency spikes after fork() (BGSAVE, AOF rewrite) and the Redis docs ask for 'never'.`,
    );
  }
  if (client.swapUsedBytes !== null && client.swapUsedBytes > 0) {
    add(
      'SWAP_IN_USE',
      `${formatBytes(client.swapUsedBytes)} of swap is in use on ${where}: a page of Redis (or of the client) read back from swap stalls the process, and the docs say a benchmark machine must not swap.`,
    );
  }
  if (client.cpuGovernor !== null && client.cpuGovernor !== 'performance') {
    add(
      'GOVERNOR_NOT_PERFORMANCE',
      `The CPU frequency governor on ${where} is '${client.cpuGovernor}', not 'performance': the clock follows the load, so runs are less reproducible than at a fixed highest frequency.`,
    );
  }
  // The server's io-threads against the CPUs its process may run on (known for a local server).
  const crowded = ioThreadsOverCpus(server.ioThreads ?? null, client.numa?.serverCpus ?? null);
  if (crowded) out.push(crowded);
  const p = server.persistence;
  if ((p.save !== null && p.save.trim() !== '') || p.appendonly === true) {
    const what = [
      p.save?.trim() ? `RDB snapshots (save "${p.save.trim()}")` : null,
      p.appendonly ? `AOF (appendfsync ${p.appendfsync ?? 'unknown'})` : null,
    ]
      .filter(Boolean)
      .join(' and ');
    add(
      'PERSISTENCE_ON',
      `Persistence is on with ${what}: fork() and disk writes during the run add latency and compete for CPU and I/O, so results are not comparable with a server that does not persist.`,
    );
  }
  if (shared) {
    const how =
      link.kind === 'unix'
        ? 'a unix socket'
        : link.kind === 'tcp-loopback'
          ? 'loopback'
          : "TCP to one of this machine's own addresses";
    add(
      'SAME_HOST',
      `Client and server run on the same host (${how}): they compete for the same CPUs and caches, and no network latency is included, so the numbers describe neither alone.`,
    );
  }
  if (server.monitorClients !== null && server.monitorClients > 0) {
    add(
      'MONITOR_CLIENTS',
      `${server.monitorClients} client${server.monitorClients === 1 ? ' is' : 's are'} running MONITOR on the server: the server copies every command to ${server.monitorClients === 1 ? 'it' : 'them'}, which the Redis docs say alters benchmark results significantly.`,
    );
  }
  if (server.loglevel === 'debug' || server.loglevel === 'verbose') {
    add(
      'DEBUG_LOGLEVEL',
      `The server logs at '${server.loglevel}' level: writing log lines costs time on the main thread, and the Redis docs advise 'notice' or 'warning' for benchmarks.`,
    );
  }
  return out;
}

export type CellWarningCode = 'CLIENT_BOUND' | 'UNSTABLE' | 'ERRORS' | 'STALL' | 'WRONG_REPLIES';

const CELL_SENTENCES: Record<CellWarningCode, string> = {
  CLIENT_BOUND:
    'The client, not the server, was the bottleneck in this cell: its event loop was saturated, so the throughput is a floor for the server, not its capacity.',
  UNSTABLE:
    'Throughput varied by more than 10% between trials of this cell (coefficient of variation above 0.10), so its median is not a reliable figure.',
  ERRORS:
    'Most replies in this cell were errors, so its throughput measures how fast the server refuses the command, not how fast it runs it: it is left out of headlines and comparisons.',
  STALL:
    'The server sent no reply for over a second while requests were outstanding (a pause: a fork, a blocking command, a stopped or swapping process); the wait is in the latency figures.',
  WRONG_REPLIES:
    'The server did not answer this command as the command answers: its replies were of another type, or its own count of calls (INFO commandstats) fell short of the replies received. These figures measure something else (a proxy, a fake, a server that replies without running the command); they are not a result, and the database refuses them.',
};

/** A cell-level warning (made by the runner, which sees the trials), with the fixed sentence. */
export function cellWarning(code: CellWarningCode, cellLabel: string, detail: string): Warning {
  const d = detail.trim();
  return { code, message: d ? `${CELL_SENTENCES[code]} ${d}` : CELL_SENTENCES[code], cell: cellLabel };
}

function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} KiB`;
  return `${n} B`;
}
