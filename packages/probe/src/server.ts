/**
 * The server block of a result: which product and build answered, and the settings the Redis
 * docs name as changing benchmark numbers (persistence, I/O threads, maxmemory, log level,
 * MONITOR clients). Built from INFO, CONFIG GET * and CLIENT LIST.
 *
 * Product detection, because every fork reports a `redis_version` for old clients' sake:
 *   - Valkey: `valkey_version` (8.0+) or `server_name:valkey` (7.2); `redis_version` is then the
 *     compatibility level (7.2.4), not Valkey's version.
 *   - Dragonfly: `dragonfly_version:df-vX.Y.Z`.
 *   - KeyDB: its Server section says only `redis_version:6.3.x`. What names it is the `# KeyDB`
 *     section (`mvcc_depth`, shown by INFO all/everything) and the executable (`keydb-server`).
 *   - Otherwise Redis if there is a `redis_version`, else unknown.
 */

import { parseInfo } from '@redis-benchdb/result';
import { findServerBuild } from './build-manifest.js';
import { cleanServer } from './clean.js';
import { type Fact, known, missing, take } from './fact.js';
import type { Server, ServerMode, ServerProduct } from './types.js';

export const CONFIG_UNAVAILABLE = 'CONFIG GET is disabled on this server (renamed or ACL)';
export const CLIENT_LIST_UNAVAILABLE = 'CLIENT LIST is disabled on this server (renamed or ACL)';

export interface DescribeServerNotes {
  /** Why `config` is null (e.g. the server's error); defaults to CONFIG_UNAVAILABLE. */
  configReason?: string;
  /** Why `clients` is null. */
  clientsReason?: string;
}

export function detectProduct(info: Record<string, string>): ServerProduct {
  if (info.valkey_version !== undefined || info.server_name?.toLowerCase() === 'valkey') return 'valkey';
  if (info.dragonfly_version !== undefined) return 'dragonfly';
  if (info.mvcc_depth !== undefined || /keydb/i.test(baseName(info.executable ?? ''))) return 'keydb';
  if (info.redis_version !== undefined) return 'redis';
  return 'unknown';
}

/**
 * Pure: the Server block from parsed INFO (all sections), CONFIG GET * as a map (null when the
 * server refused it), and the raw CLIENT LIST reply (null when refused or not asked).
 */
export function describeServer(
  info: Record<string, string>,
  config: Record<string, string> | null,
  clients: string | null = null,
  local: boolean | null = null,
  notes: DescribeServerNotes = {},
): Server {
  const unknown: Record<string, string> = {};
  const product = detectProduct(info);
  const conf = configReader(config, notes.configReason ?? CONFIG_UNAVAILABLE);
  const infoStr = (key: string, path: string) => {
    const v = info[key]?.trim();
    return take(unknown, path, v ? known(v) : missing(`INFO has no ${key}`));
  };
  const infoInt = (key: string, path: string) => {
    const v = info[key]?.trim();
    return take(unknown, path, v && /^-?\d+$/.test(v) ? known(Number(v)) : missing(`INFO has no ${key}`));
  };

  // Each step records what it could not learn in `unknown`, in the order the result lists them.
  const { version, gitSha, mode } = identityFacts(info, product, unknown, infoStr);
  const { ioThreads, ioThreadsDoReads, hz } = threadFacts(info, conf, config === null, unknown);
  const persistence = persistenceFacts(info, conf, unknown);
  const { maxmemoryBytes, maxmemoryPolicy } = memoryLimitFacts(info, conf, unknown);
  const level = conf('loglevel');
  const loglevel = take(unknown, 'loglevel', 'value' in level ? known(level.value) : missing(level.reason));
  const monitorClients =
    clients === null
      ? take(unknown, 'monitorClients', missing(notes.clientsReason ?? CLIENT_LIST_UNAVAILABLE))
      : countMonitorClients(clients);

  const server: Server = {
    product,
    version,
    gitSha,
    buildId: infoStr('redis_build_id', 'buildId'),
    mode,
    archBits: archBits(info.arch_bits?.trim(), unknown),
    allocator: infoStr('mem_allocator', 'allocator'),
    ioThreads,
    ioThreadsDoReads,
    hz,
    persistence,
    maxmemoryBytes,
    maxmemoryPolicy,
    multiplexingApi: infoStr('multiplexing_api', 'multiplexingApi'),
    os: infoStr('os', 'os'),
    loglevel,
    connectedClients: infoInt('connected_clients', 'connectedClients'),
    monitorClients,
    local: take(
      unknown,
      'local',
      local === null ? missing('not known whether the server runs on this machine') : known(local),
    ),
    unknown,
  };
  return cleanServer(server);
}

/** A CONFIG GET value, or why there is none. */
type ConfigValue = { value: string } | { reason: string };
type ConfigReader = (name: string) => ConfigValue;

function configReader(config: Record<string, string> | null, refused: string): ConfigReader {
  return (name) => {
    if (config === null) return { reason: refused };
    const v = config[name];
    return v === undefined
      ? { reason: `CONFIG GET * did not include '${name}' on this server` }
      : { value: v };
  };
}

/** Which build answered: its version (the product's own, not the compatibility redis_version), git sha and mode. */
function identityFacts(
  info: Record<string, string>,
  product: ServerProduct,
  unknown: Record<string, string>,
  infoStr: (key: string, path: string) => string | null,
) {
  let version: string | null;
  if (product === 'valkey') version = take(unknown, 'version', pick(info, 'valkey_version', 'redis_version'));
  else if (product === 'dragonfly') {
    const v = info.dragonfly_version?.trim();
    version = take(
      unknown,
      'version',
      v ? known(v.replace(/^df-v?/, '')) : missing('INFO has no dragonfly_version'),
    );
  } else version = infoStr('redis_version', 'version');

  // A sha of all zeros means "built outside a git checkout" (distro packages): not an identity.
  const sha = info.redis_git_sha1?.trim();
  const gitSha = take(
    unknown,
    'gitSha',
    !sha
      ? missing('INFO has no redis_git_sha1')
      : /^0+$/.test(sha)
        ? missing(`INFO reports redis_git_sha1:${sha} (built outside a git checkout, e.g. a distro package)`)
        : known(sha),
  );

  const modeRaw = (info.redis_mode ?? info.server_mode)?.trim();
  const mode = take<ServerMode>(
    unknown,
    'mode',
    !modeRaw
      ? missing('INFO has neither redis_mode nor server_mode')
      : ['standalone', 'cluster', 'sentinel'].includes(modeRaw)
        ? known(modeRaw as ServerMode)
        : missing(`unrecognised mode "${modeRaw}"`),
  );
  return { version, gitSha, mode };
}

/** I/O threads and hz: what else the server's threads do besides answering. */
function threadFacts(
  info: Record<string, string>,
  conf: ConfigReader,
  configRefused: boolean,
  unknown: Record<string, string>,
) {
  // I/O threads. INFO io_threads_active only says whether they are running right now (Redis
  // starts them under load), not how many are configured, so it is not a fallback for the count.
  const io = conf('io-threads');
  const ioThreads = take(
    unknown,
    'ioThreads',
    'value' in io
      ? /^\d+$/.test(io.value)
        ? known(Number(io.value))
        : missing(`io-threads is "${io.value}"`)
      : missing(
          configRefused
            ? `${io.reason}; INFO io_threads_active does not give the configured count`
            : io.reason,
        ),
  );
  const doReads = conf('io-threads-do-reads');
  const ioThreadsDoReads = take(
    unknown,
    'ioThreadsDoReads',
    'value' in doReads
      ? yesNo(doReads.value, 'io-threads-do-reads')
      : missing(
          configRefused
            ? doReads.reason
            : `${doReads.reason} (Redis 8 removed the setting: its I/O threads always read)`,
        ),
  );

  // hz sets how often expiry, eviction and client timeouts run: it changes the main thread's load.
  // INFO configured_hz (Redis 5+) is the fallback when CONFIG is refused.
  const hz = take(unknown, 'hz', wholeNumber(conf, 'hz', info, 'configured_hz'));
  return { ioThreads, ioThreadsDoReads, hz };
}

/** RDB snapshots and the append-only file. */
function persistenceFacts(info: Record<string, string>, conf: ConfigReader, unknown: Record<string, string>) {
  const save = conf('save');
  const aof = conf('appendonly');
  const fsync = conf('appendfsync');
  const aofInfo = info.aof_enabled?.trim();
  return {
    // "" is a real value: RDB snapshots are off.
    save: take(unknown, 'persistence.save', 'value' in save ? known(save.value) : missing(save.reason)),
    appendonly: take(
      unknown,
      'persistence.appendonly',
      'value' in aof
        ? yesNo(aof.value, 'appendonly')
        : aofInfo === '0' || aofInfo === '1'
          ? known(aofInfo === '1')
          : missing(aof.reason),
    ),
    appendfsync: take(
      unknown,
      'persistence.appendfsync',
      'value' in fsync ? known(fsync.value) : missing(fsync.reason),
    ),
  };
}

/** A whole-number setting from CONFIG, else from INFO's `infoKey` (CONFIG refused, or not a number there). */
function wholeNumber(
  conf: ConfigReader,
  name: string,
  info: Record<string, string>,
  infoKey: string,
): Fact<number> {
  const fromConfig = conf(name);
  const fromInfo = info[infoKey]?.trim();
  if ('value' in fromConfig && /^\d+$/.test(fromConfig.value)) return known(Number(fromConfig.value));
  if (fromInfo && /^\d+$/.test(fromInfo)) return known(Number(fromInfo));
  return missing(
    'value' in fromConfig
      ? `${name} is "${fromConfig.value}"`
      : `${fromConfig.reason}; INFO has no ${infoKey}`,
  );
}

/** maxmemory and its eviction policy, from CONFIG, else INFO. */
function memoryLimitFacts(info: Record<string, string>, conf: ConfigReader, unknown: Record<string, string>) {
  const maxmemoryBytes = take(unknown, 'maxmemoryBytes', wholeNumber(conf, 'maxmemory', info, 'maxmemory'));
  const policy = conf('maxmemory-policy');
  const policyInfo = info.maxmemory_policy?.trim();
  const maxmemoryPolicy = take(
    unknown,
    'maxmemoryPolicy',
    'value' in policy ? known(policy.value) : policyInfo ? known(policyInfo) : missing(policy.reason),
  );
  return { maxmemoryBytes, maxmemoryPolicy };
}

/** Clients in MONITOR mode: CLIENT LIST lines whose `flags=` contain 'O'. */
export function countMonitorClients(clientList: string): number {
  let n = 0;
  for (const line of clientList.split(/\r?\n/)) {
    const flags = /(?:^|\s)flags=(\S*)/.exec(line)?.[1];
    if (flags?.includes('O')) n++;
  }
  return n;
}

/** The PID INFO reports, for probeMachine's serverPid (only meaningful when the server is local). */
export function serverProcessId(info: Record<string, string>): number | null {
  const v = info.process_id?.trim();
  return v && /^\d+$/.test(v) ? Number(v) : null;
}

function pick(info: Record<string, string>, ...keys: string[]) {
  for (const k of keys) {
    const v = info[k]?.trim();
    if (v) return known(v);
  }
  return missing<string>(`INFO has none of ${keys.join(', ')}`);
}

function yesNo(v: string, name: string) {
  const t = v.trim().toLowerCase();
  return t === 'yes'
    ? known(true)
    : t === 'no'
      ? known(false)
      : missing<boolean>(`${name} is "${v}", not yes/no`);
}

function baseName(p: string): string {
  return p.split(/[\\/]/).pop() ?? p;
}

// ---- Collecting from a live server ---------------------------------------------------------------

/** What the probe needs from a client: an ioredis instance fits. */
export interface ServerCommands {
  info(section?: string): Promise<string>;
  config(...args: string[]): Promise<unknown>;
  client(...args: string[]): Promise<unknown>;
}

export interface RawServerFacts {
  info: Record<string, string>;
  config: Record<string, string> | null;
  clients: string | null;
  notes: DescribeServerNotes;
}

/**
 * INFO (all sections: KeyDB names itself only outside the Server section), CONFIG GET * and
 * CLIENT LIST. CONFIG and CLIENT are often renamed or denied on managed services: their errors
 * become reasons. An INFO failure is not tolerated: without it there is nothing to describe.
 */
export async function readServerFacts(redis: ServerCommands): Promise<RawServerFacts> {
  let infoText: string;
  try {
    infoText = await redis.info('everything');
    // Servers that do not know the section answer with nothing rather than an error.
    if (!/\w+:/.test(infoText)) infoText = await redis.info();
  } catch {
    infoText = await redis.info();
  }
  const notes: DescribeServerNotes = {};
  let config: Record<string, string> | null = null;
  try {
    config = configToMap(await redis.config('GET', '*'));
  } catch (err) {
    notes.configReason = `${CONFIG_UNAVAILABLE}: ${firstLine(err)}`;
  }
  let clients: string | null = null;
  try {
    const reply = await redis.client('LIST');
    clients =
      typeof reply === 'string' ? reply : Buffer.isBuffer(reply) ? reply.toString('utf8') : String(reply);
  } catch (err) {
    notes.clientsReason = `${CLIENT_LIST_UNAVAILABLE}: ${firstLine(err)}`;
  }
  return { info: parseInfo(infoText), config, clients, notes };
}

/**
 * The Server block of a live server. A local server's binary is looked up for the manifest that
 * scripts/build-server.mjs leaves beside what it builds (`build`: the archive's tag and checksum),
 * whether or not redis-benchdb launched it. A remote server's paths mean nothing here.
 */
export async function collectServer(redis: ServerCommands, local: boolean | null): Promise<Server> {
  const raw = await readServerFacts(redis);
  const server = describeServer(raw.info, raw.config, raw.clients, local, raw.notes);
  const build = local === true ? await findServerBuild(raw.info) : null;
  return build ? { ...server, build } : server;
}

/** CONFIG GET replies: a flat [name, value, ...] array (RESP2) or a map (RESP3, some clients). */
export function configToMap(reply: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const str = (v: unknown) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) out[str(reply[i])] = str(reply[i + 1]);
  } else if (reply instanceof Map) {
    for (const [k, v] of reply) out[str(k)] = str(v);
  } else if (reply && typeof reply === 'object') {
    for (const [k, v] of Object.entries(reply)) out[k] = str(v);
  }
  return out;
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

/** The schema knows 32- and 64-bit builds; anything else is recorded as unknown, with what was seen. */
function archBits(v: string | undefined, unknown: Record<string, string>): 32 | 64 | null {
  if (v === '32' || v === '64') return Number(v) as 32 | 64;
  unknown.archBits = v
    ? `INFO arch_bits is ${JSON.stringify(v)}, neither 32 nor 64`
    : 'INFO has no arch_bits';
  return null;
}
