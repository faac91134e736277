import path from 'node:path';
import {
  BenchSession,
  DEFAULT_TARGET,
  type LaunchedServer,
  type Pinning,
  pinProcess,
  startServer,
  type Target,
} from '@redis-benchdb/engine';
import { ioThreadsOverCpus, type Warning } from '@redis-benchdb/result';
import { collectEnvironment } from './environment.js';
import type { GroupMember } from './group-cells.js';

/** What the runner reads of a server to launch (a member of the CLI's launch plan). */
export interface MemberToLaunch {
  /** Its place in the group. */
  index: number;
  /** The resolved binary. */
  bin: string;
  /** Every config line, in order. */
  config: string[];
  transport: 'tcp' | 'unix';
  /** What sets it apart in the group, e.g. "redis-server 7.0.15 · io-threads 2 · unix". */
  label: string;
}

/** The group a member is launched in: its size, and the CPUs every member is pinned to (or null). */
export interface GroupToLaunch {
  size: number;
  serverCpus: string | null;
}

export interface LaunchOptions {
  /** NOT_PINNED warnings of the client (pinClient), carried by every member's result. */
  clientWarnings: Warning[];
  /** --cloud-metadata: ask the cloud's metadata service for the instance type. */
  cloudMetadata: boolean;
  /** What the run's marker says ran it (`redis-benchdb 0.2.0`): `cleanup` finds a killed run's keys by it. */
  markAs: string;
  /** Where the launch's lines go: the runner prints nothing itself. */
  log: (s: string) => void;
}

/**
 * Start one planned server, pin it, open a session on it and describe its environment. A server
 * that does not start (a config line it refuses) costs only its own member: it is reported and
 * skipped. The server, when it started, is returned even if the rest failed, so it gets stopped.
 */
export async function startMember<P extends MemberToLaunch>(
  m: P,
  group: GroupToLaunch,
  opts: LaunchOptions,
): Promise<{ server: LaunchedServer | null; member: GroupMember<P> | null }> {
  const { log, cloudMetadata } = opts;
  const tag = `[${m.index + 1}/${group.size}]`;
  const skip = (err: Error) => {
    log(`error: ${tag} ${m.label}: ${err.message}\n(skipped; the other launches go on)`);
    return null;
  };
  const server = await startServer({
    bin: m.bin,
    config: m.config,
    unixSocketInDir: m.transport === 'unix',
  }).catch(skip);
  if (!server) return { server: null, member: null };
  const warnings = [...opts.clientWarnings];
  let pinned = '';
  if (group.serverCpus !== null) {
    // Every member on the same CPUs: what else runs there weighs on each alike.
    const pin = await pinProcess(server.pid, group.serverCpus);
    pinned = pin.applied ? `, pinned to CPU ${pin.applied}` : `, NOT pinned (${pin.error})`;
    if (!pin.applied) warnings.push(notPinned('--server-cpus', pin));
  }
  const target: Target = {
    ...DEFAULT_TARGET,
    host: '127.0.0.1',
    port: server.port,
    ...(m.transport === 'unix' ? { socket: server.unixSocket! } : {}),
  };
  const where = target.socket ? `unix:${target.socket}` : `127.0.0.1:${server.port}`;
  const startedAt = new Date();
  try {
    const session = await BenchSession.open(target);
    log(
      `${tag} ${m.label}: started ${path.basename(server.bin)} ${server.version} (pid ${server.pid}) on ${where}${pinned}; keys under ${session.prefix}*`,
    );
    try {
      // As a single run does: should this process be killed, `cleanup` finds the run's keys by it.
      await session
        .markStart(opts.markAs)
        .catch((err: Error) =>
          log(
            `warning: ${tag} could not mark ${session.prefix} as this run's (${err.message}): if this run is killed, \`cleanup\` will not find its keys`,
          ),
        );
      const environment = await collectEnvironment(session, target, { cloudMetadata });
      // Said now, not only at the end: every figure of this member will carry it (environmentWarnings).
      const crowded = ioThreadsOverCpus(environment.server.ioThreads, environment.client.numa.serverCpus);
      if (crowded) log(`warning: ${tag} ${crowded.message}`);
      return {
        server,
        member: {
          plan: m,
          tag,
          target,
          session,
          environment,
          warnings,
          startedAt,
          serverPid: server.pid,
          summaries: [],
          drift: null,
          failure: null,
          stopped: false,
        },
      };
    } catch (err) {
      await session.close();
      throw err;
    }
  } catch (err) {
    skip(err as Error);
    return { server, member: null };
  }
}

/** Pin this process (and the worker threads it will start) for a run; a failure is reported, not fatal. */
export async function pinClient(cpus: string, say: (s: string) => void): Promise<Warning[]> {
  const pin = await pinProcess(process.pid, cpus);
  if (pin.applied) {
    say(`redis-benchdb pinned to CPU ${pin.applied} (--client-cpus)`);
    return [];
  }
  say(`warning: --client-cpus ${cpus} NOT applied: ${pin.error}; the client runs on any CPU`);
  return [notPinned('--client-cpus', pin)];
}

function notPinned(flag: string, pin: Pinning): Warning {
  const who = flag === '--server-cpus' ? 'server' : 'client';
  return {
    code: 'NOT_PINNED',
    message: `${flag} ${pin.requested} was asked for but not applied (${pin.error}): the ${who} ran on any CPU, so client and server may have shared one.`,
    cell: null,
  };
}
