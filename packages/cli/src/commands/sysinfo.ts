import { defineCommand, type FlagsOf, flag } from '@redis-benchdb/command';
import type { BenchSession } from '@redis-benchdb/engine';
import { CLOUD_METADATA, json } from '../options/common.js';
import { parseTarget, TARGET_OPTIONS } from '../options/target.js';

const SYSINFO_OPTIONS = {
  json: json('print the environment block as JSON'),
  server: flag('--no-server', 'describe only this machine'),
  cloudMetadata: CLOUD_METADATA,
  ...TARGET_OPTIONS,
};

export type SysinfoFlags = FlagsOf<typeof SYSINFO_OPTIONS>;

export default defineCommand({
  name: 'sysinfo',
  description: 'describe this machine, the server and the link between them, as a result records them',
  options: SYSINFO_OPTIONS,
  run: (flags) => sysinfoCommand(flags),
});

/**
 * `redis-benchdb sysinfo`: the environment block exactly as a result records it. Without a
 * reachable server (or with --no-server) it describes this machine and says why the rest is unknown.
 */
export async function sysinfoCommand(flags: SysinfoFlags): Promise<number> {
  const target = parseTarget(flags);
  // Loaded here, not at the top: the program's --help loads this file for the definition above.
  const [{ BenchSession }, { describeLink, formatEnvironmentTable, measureIntrinsicLatency, probeMachine }] =
    await Promise.all([import('@redis-benchdb/engine'), import('@redis-benchdb/probe')]);
  const { collectEnvironment } = await import('@redis-benchdb/runner');
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
