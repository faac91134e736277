import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { findServerBinary, parseCpuList, readServerVersion } from '@redis-benchdb/engine';
import { readServerBuild } from '@redis-benchdb/probe';
import { RunnerError } from './errors.js';
import { homeRelative, type Redactions, scrubConfigLine } from './scrub.js';

/**
 * The run flags a launch plan reads (the CLI's commands/run.ts defines them), as given: lists and
 * names are checked here, and the message of a refusal names the flag.
 */
export interface LaunchFlags {
  /** Launch these servers (repeatable). */
  serverBin?: string[];
  serverConfig?: string[];
  serverConfigVariant?: string[];
  persistence?: string;
  transport?: string;
  serverCpus?: string;
  clientCpus?: string;
  // The target flags, which --server-bin contradicts: only whether each was given is read.
  host?: unknown;
  port?: unknown;
  socket?: unknown;
  uri?: unknown;
  password?: unknown;
  user?: unknown;
  tls?: unknown;
  cluster?: unknown;
}

export const PERSISTENCE_VARIANTS = {
  none: [],
  'aof-always': ['appendonly yes', 'appendfsync always'],
  'aof-everysec': ['appendonly yes', 'appendfsync everysec'],
  'aof-no': ['appendonly yes', 'appendfsync no'],
} as const satisfies Record<string, readonly string[]>;
export type Persistence = keyof typeof PERSISTENCE_VARIANTS;
export type Transport = 'tcp' | 'unix';

/** One server to launch and measure: a point of the cross product of the axes given. */
export interface LaunchMember {
  index: number;
  /** The resolved binary. */
  bin: string;
  /** Every config line, in order: --server-config, then the variant, then the persistence lines. */
  config: string[];
  transport: Transport;
  persistence: Persistence;
  /** What sets it apart in the group, e.g. "redis-server 7.0.15 · io-threads 2 · unix". */
  label: string;
}

export interface LaunchPlan {
  groupId: string;
  members: LaunchMember[];
  /** The axes with more than one value (result.v1 runGroup.varies). */
  varies: string[];
  serverCpus: string | null;
  /** What the labels leave out of what was typed (scrub.ts), for the user to be told. */
  redactions: Redactions;
}

/** A cross product past this is a typo (or a night's run better split into several commands). */
export const MAX_GROUP_SIZE = 32;

// Lines that would move the server off loopback, out of its temp dir or out of our hands.
const REFUSED_CONFIG = new Set([
  'bind',
  'port',
  'tls-port',
  'unixsocket',
  'unixsocketperm',
  'dir',
  'daemonize',
  'logfile',
  'include',
]);
const PERSISTENCE_CONFIG = new Set(['appendonly', 'appendfsync', 'save']);

const usage = (msg: string) => new RunnerError(msg, 'ERR_USAGE');

/** `--server-config 'io-threads 4'` and each line of a `--server-config-variant 'a 1; b 2'`. */
function configLines(text: string, flag: string, persistenceGiven: boolean): string[] {
  const lines = text
    .split(';')
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length === 0)
    throw usage(`invalid ${flag}: "${text}" (expected a config line like 'io-threads 4')`);
  for (const line of lines) {
    const name = line.split(/\s+/)[0]!.replace(/^--/, '').toLowerCase();
    if (REFUSED_CONFIG.has(name))
      throw usage(
        `${flag} '${line}': ${name} is set by redis-benchdb (loopback only, a free port, its own temp dir); leave it out`,
      );
    if (persistenceGiven && PERSISTENCE_CONFIG.has(name))
      throw usage(`${flag} '${line}': choose persistence with --persistence or with ${flag}, not both`);
  }
  return lines;
}

function list<T extends string>(
  flag: string,
  text: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T[] {
  if (text === undefined) return [fallback];
  const items = [...new Set(text.split(',').map((s) => s.trim().toLowerCase()))];
  for (const item of items)
    if (!(allowed as readonly string[]).includes(item))
      throw usage(`invalid ${flag}: "${item}" (expected a comma-separated list of ${allowed.join(', ')})`);
  return items as T[];
}

/** Refuse flags that make no sense without --server-bin, and target flags that contradict it. */
export function checkLaunchFlags(f: LaunchFlags): void {
  const launchOnly: [string, unknown][] = [
    ['--server-config', f.serverConfig],
    ['--server-config-variant', f.serverConfigVariant],
    ['--persistence', f.persistence],
    ['--transport', f.transport],
    ['--server-cpus', f.serverCpus],
  ];
  if (!f.serverBin) {
    const given = launchOnly.filter(([, v]) => v !== undefined).map(([k]) => k);
    if (given.length > 0)
      throw usage(
        `${given.join(', ')} ${given.length > 1 ? 'apply' : 'applies'} to servers redis-benchdb starts: add --server-bin PATH (e.g. --server-bin redis-server)`,
      );
    return;
  }
  const target: [string, unknown][] = [
    ['-h', f.host],
    ['-p', f.port],
    ['-s', f.socket],
    ['-u', f.uri],
    ['-a', f.password],
    ['--user', f.user],
    ['--tls', f.tls],
    ['--cluster', f.cluster],
  ];
  const clash = target.filter(([, v]) => v !== undefined).map(([k]) => k);
  if (clash.length > 0)
    throw usage(
      `--server-bin starts its own standalone servers on free loopback ports (use --transport for a unix socket): drop ${clash.join(', ')}`,
    );
}

/**
 * The servers a `run --server-bin ...` launches, in the order they run: every --server-bin, times
 * every --server-config-variant, times every --persistence, times every --transport (the last
 * varies fastest, so tcp and unix of one configuration run back to back).
 */
export async function planLaunches(f: LaunchFlags): Promise<LaunchPlan> {
  checkLaunchFlags(f);
  const given = f.serverBin ?? [];
  const persistenceGiven = f.persistence !== undefined;
  const common = (f.serverConfig ?? []).flatMap((t) => configLines(t, '--server-config', persistenceGiven));
  const variants = (f.serverConfigVariant ?? []).map((t) =>
    configLines(t, '--server-config-variant', persistenceGiven),
  );
  const persistences = list(
    '--persistence',
    f.persistence,
    Object.keys(PERSISTENCE_VARIANTS) as Persistence[],
    'none',
  );
  const transports = list<Transport>('--transport', f.transport, ['tcp', 'unix'], 'tcp');
  const serverCpus = f.serverCpus === undefined ? null : f.serverCpus.trim();
  if (serverCpus !== null) parseCpuList(serverCpus, '--server-cpus');
  if (f.clientCpus !== undefined) parseCpuList(f.clientCpus, '--client-cpus');

  const size = given.length * Math.max(1, variants.length) * persistences.length * transports.length;
  if (size > MAX_GROUP_SIZE)
    throw usage(
      `that is ${size} runs (${given.length} servers × ${Math.max(1, variants.length)} config variants × ${persistences.length} persistence × ${transports.length} transports); at most ${MAX_GROUP_SIZE} in one command`,
    );

  // Every binary is found and asked its version before anything runs: a typo in the third one
  // must not surface after the first two have run.
  const servers = await Promise.all(
    given.map(async (name) => {
      const bin = findServerBinary(name);
      if (!bin)
        throw usage(
          `--server-bin ${name}: not found${name.includes('/') ? '' : ' on PATH'} (give the path of a redis-server or valkey-server binary)`,
        );
      // A build from scripts/build-server.mjs names its release tag, which the version may not
      // (Redis 8.0-m01 reports 7.9.224): the label carries both.
      const [version, build] = await Promise.all([readServerVersion(bin), readServerBuild(bin)]);
      const tag = build && build.tag !== version ? ` (${build.tag})` : '';
      return { given: name, bin, name: `${path.basename(bin)} ${version}${tag}` };
    }),
  );
  // Two builds of one version tell apart by their path.
  const ambiguous = (name: string) =>
    new Set(servers.filter((s) => s.name === name).map((s) => s.bin)).size > 1;
  const varies = [
    ...(new Set(servers.map((s) => s.bin)).size > 1 ? ['server'] : []),
    ...(variants.length > 1 ? ['serverConfig'] : []),
    ...(persistences.length > 1 ? ['persistence'] : []),
    ...(transports.length > 1 ? ['transport'] : []),
  ];

  // A label is published: secret config values and the user's home folder stay out of it.
  const redactions: Redactions = new Set();
  const members: LaunchMember[] = [];
  for (const server of servers)
    for (const variant of variants.length > 0 ? variants : [null])
      for (const persistence of persistences)
        for (const transport of transports) {
          const given = homeRelative(server.given, redactions);
          const parts = [ambiguous(server.name) ? `${server.name} (${given})` : server.name];
          if (variant) parts.push(variant.map((l) => scrubConfigLine(l, redactions)).join(', '));
          if (persistenceGiven) parts.push(persistence === 'none' ? 'no persistence' : persistence);
          if (f.transport !== undefined) parts.push(transport);
          members.push({
            index: members.length,
            bin: server.bin,
            config: [...common, ...(variant ?? []), ...PERSISTENCE_VARIANTS[persistence]],
            transport,
            persistence,
            label: parts.join(' · '),
          });
        }
  // The same binary twice (an A/A run) gives equal labels: number them so each is findable.
  const seen = new Map<string, number>();
  for (const m of members) {
    const n = (seen.get(m.label) ?? 0) + 1;
    seen.set(m.label, n);
    if (n > 1) m.label = `${m.label} (run ${n})`;
  }
  return { groupId: randomBytes(8).toString('hex'), members, varies, serverCpus, redactions };
}
