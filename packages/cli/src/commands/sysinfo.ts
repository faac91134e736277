import { BenchSession } from '@redis-benchdb/engine';
import {
  describeLink,
  formatEnvironmentTable,
  measureIntrinsicLatency,
  probeMachine,
} from '@redis-benchdb/probe';
import type { SysinfoFlags } from '../program.js';
import { collectEnvironment } from '../run/environment.js';
import { parseTarget } from '../run/parse-options.js';

/**
 * `redis-benchdb sysinfo`: the environment block exactly as a result records it. Without a
 * reachable server (or with --no-server) it describes this machine and says why the rest is unknown.
 */
export async function sysinfoCommand(flags: SysinfoFlags): Promise<number> {
  const target = parseTarget({ ...flags, server: undefined });
  let env:
    | Awaited<ReturnType<typeof collectEnvironment>>
    | { client: unknown; server: null; link: unknown; unknown: Record<string, string> };
  let session: BenchSession | null = null;
  try {
    if (flags.server === false) throw new Error('not asked for (--no-server)');
    session = await BenchSession.open(target);
    env = await collectEnvironment(session, target, { cloudMetadata: flags.cloudMetadata === true });
  } catch (err) {
    const client = await probeMachine({ serverPid: null, allowNetwork: flags.cloudMetadata === true });
    const why = `no server described: ${(err as Error).message}`;
    const { link, unknown } = describeLink(
      { host: target.host, socket: target.socket ?? null },
      { intrinsicLatencyUs: measureIntrinsicLatency(1000) },
    );
    unknown['link.rttUs'] = `no PING baseline: ${why}`;
    env = { client, server: null, link, unknown: { server: why, ...unknown } };
  } finally {
    await session?.close();
  }
  process.stdout.write(
    flags.json ? `${JSON.stringify(env, null, 2)}\n` : `${formatEnvironmentTable(env as never)}\n`,
  );
  return 0;
}
