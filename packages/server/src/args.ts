import {
  custom,
  defineCommand,
  type FlagsOf,
  flag,
  grouped,
  type OptionDef,
  text,
} from '@redis-benchdb/command';
import { defaultDatabasePath } from '@redis-benchdb/db';
import { DEFAULT_APP_OPTIONS } from './options.js';
import { DEFAULT_PNG_CACHE_MB, DEFAULT_SITE_DEBOUNCE_MS, type ServeOptions } from './serve.js';
import { invalidProxyEntry, splitProxyList } from './trust-proxy.js';
import { UsageError } from './usage-error.js';

// The service's command: each flag written once, with its help, the default --help shows and the
// parser that refuses a bad value by naming the flag (@redis-benchdb/command, as the CLI's commands);
// then the checks between flags. The bin adds `restore` to it (program.ts).

/** The bin's default port; the library's is 0 (a free one), which suits tests, not a service. */
export const DEFAULT_PORT = 8080;
const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_BACKUP_EVERY_MIN = 60;
export const DEFAULT_BACKUP_KEEP = 24;

const MIB = 1024 * 1024;
const limits = DEFAULT_APP_OPTIONS.rateLimit;

const DESCRIPTION = `The redis-benchdb ingest service: POST /api/v1/results takes signed results into a SQLite database, GET /api/v1/results/:id gives them back, POST /api/v1/results/:id/retract unlists one, GET /api/v1/health says it is up. Prints "listening on http://HOST:PORT" on stdout once it accepts connections; SIGTERM or Ctrl-C finishes the requests in flight and closes the database.`;

const EXAMPLES = `
Examples:
  redis-benchdb-server --db /tmp/service.sqlite --port 8080
  pnpm -s redis-benchdb-server --db /tmp/service.sqlite --port 8080
      (the same, from a clone of the repository)
  redis-benchdb-server --db /tmp/service.sqlite --site-dir /tmp/site --backup-dir /tmp/backups
      (publishing: docs/DEPLOY.md)
  redis-benchdb-server restore BACKUP --db PATH
      (the service stopped: restore --help says more)`;

/** A whole number from `min` to `max`, or a UsageError naming the flag, the range and `hint`. */
function wholeNumber(flag: string, min: number, max = Number.MAX_SAFE_INTEGER, hint = '') {
  return (text: string): number => {
    const n = Number(text);
    if (text.trim() !== '' && Number.isSafeInteger(n) && n >= min && n <= max) return n;
    const range = max === Number.MAX_SAFE_INTEGER ? `, at least ${min}` : ` from ${min} to ${max}`;
    throw new UsageError(`invalid --${flag}: ${text} (a whole number${range}${hint})`);
  };
}

interface NumberFlag {
  min: number;
  max?: number;
  /** Follows the range in the error: what the number means. */
  hint?: string;
  /** What --help shows as the default, when the number alone does not say it. */
  shown?: string;
}

/** A flag whose value is a whole number; --help shows its default, which serveOptionsOf applies. */
function numberFlag(flags: string, help: string, fallback: number, o: NumberFlag): OptionDef<number> {
  const parse = wholeNumber(flags.slice(2, flags.indexOf(' ')), o.min, o.max, o.hint);
  return {
    flags,
    help,
    shownDefault: fallback,
    ...(o.shown !== undefined ? { shownDefaultText: o.shown } : {}),
    parse: (raw) => parse(String(raw)),
  };
}

/** --trust-proxy's list: each entry an address or a CIDR block, and never a blanket "trust all". */
function proxyList(text: string): string[] {
  const list = splitProxyList(text);
  if (list.length === 0)
    throw new UsageError('invalid --trust-proxy: empty (the addresses or CIDR blocks of your proxies)');
  for (const entry of list) {
    const why = invalidProxyEntry(entry);
    if (why !== null)
      throw new UsageError(
        `invalid --trust-proxy: ${entry} (${why}; give your proxies' addresses or CIDR blocks, comma-separated, e.g. 10.0.0.5,172.16.0.0/12)`,
      );
  }
  return list;
}

/** --public-url: a URL with an origin (http or https). */
function publicUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return text;
  } catch {}
  throw new UsageError(
    `invalid --public-url: ${text} (an http or https URL, e.g. https://benchdb.example.org)`,
  );
}

const SERVICE_FLAGS = {
  db: text(
    '--db <path>',
    'the SQLite file, created if missing (default: $REDIS_BENCHDB_DB, else ~/.local/share/redis-benchdb/benchdb.sqlite)',
  ),
  host: text('--host <address>', 'address to listen on: 0.0.0.0 or :: for every interface', {
    default: DEFAULT_HOST,
  }),
  port: numberFlag('--port <n>', 'port to listen on, 0 for a free one', DEFAULT_PORT, {
    min: 0,
    max: 65535,
    hint: '; 0 picks a free one',
  }),
  requestTimeout: numberFlag(
    '--request-timeout <ms>',
    'time to receive a whole request, headers and body, and the longest a connection may sit idle',
    DEFAULT_APP_OPTIONS.requestTimeoutMs,
    { min: 1 },
  ),
  bodyLimit: numberFlag(
    '--body-limit <bytes>',
    'the largest body accepted; larger ones get 413',
    DEFAULT_APP_OPTIONS.bodyLimitBytes,
    { min: 1 },
  ),
  perIpPerMinute: numberFlag(
    '--per-ip-per-minute <n>',
    "API requests (not the site's files) from one network per minute: an IPv4 address, or an IPv6 address's first --ipv6-prefix bits",
    limits.perIpPerMinute,
    { min: 1 },
  ),
  ipv6Prefix: numberFlag(
    '--ipv6-prefix <bits>',
    'the IPv6 prefix length a network is counted by',
    DEFAULT_APP_OPTIONS.ipv6PrefixLength,
    { min: 1, max: 128, hint: ": 64 counts a customer's /64 as one" },
  ),
  perKeyPerMinute: numberFlag(
    '--per-key-per-minute <n>',
    'submissions signed by one key per minute',
    limits.perKeyPerMinute,
    { min: 1 },
  ),
  newKeysPerHour: numberFlag(
    '--new-keys-per-hour <n>',
    'signing keys with no result here yet that one network may bring in per hour',
    limits.newKeysPerNetworkPerHour,
    { min: 1 },
  ),
  trustProxy: custom(
    '--trust-proxy <list>',
    'the reverse proxies in front of the service, comma-separated addresses or CIDR blocks (e.g. 10.0.0.5,172.16.0.0/12): a request from one counts against the address its X-Forwarded-For names. Without it, every request counts against the address it came from, and X-Forwarded-For is ignored',
    proxyList,
  ),
  checkThreads: numberFlag(
    '--check-threads <n>',
    'worker threads that check submissions off the event loop',
    DEFAULT_APP_OPTIONS.checkThreads,
    { min: 1, shown: `the CPUs available less one, at least 1; here ${DEFAULT_APP_OPTIONS.checkThreads}` },
  ),
  maxQueued: numberFlag(
    '--max-queued <n>',
    'submissions being checked or waiting for a thread; more get 503 with retry-after',
    DEFAULT_APP_OPTIONS.maxQueuedSubmissions,
    { min: 1 },
  ),
  minFreeMb: numberFlag(
    '--min-free-mb <n>',
    "free space the database's disk must keep: below it, submissions get 507 and health says not ready",
    DEFAULT_APP_OPTIONS.minFreeBytes / MIB,
    { min: 0 },
  ),
  publicUrl: custom(
    '--public-url <url>',
    'the address clients reach the service by, e.g. https://benchdb.example.org behind a proxy: a retraction must name its origin, and one signed for another service is refused (default: $REDIS_BENCHDB_PUBLIC_URL, else --site-url, else the address it listens on)',
    publicUrl,
  ),
  log: flag('--log', 'a JSON line per request on stdout (pino), with the stack of any 500'),
  projectKeys: text(
    '--project-keys <dir>',
    "public keys that are all the project's (as data/results/keys/: one <fingerprint hex>.pub.pem each): their results count as one signer",
  ),
};

const PUBLISHING_FLAGS = grouped('Publishing (the site on the same origin; docs/DEPLOY.md):', {
  siteDir: text(
    '--site-dir <dir>',
    'serve the static site built into DIR at /, and rebuild it after new results: one build at a time, into a fresh directory swapped in only when it succeeds. A result page not built yet says that the result was received, and when its page should appear; GET /api/v1/health has the site state',
  ),
  siteBuild: text(
    '--site-build <command>',
    'the shell command that builds the site; it gets REDIS_BENCHDB_DB, REDIS_BENCHDB_SITE_OUT (the directory to write) and REDIS_BENCHDB_SITE_URL (default: node scripts/site-build.mjs of the clone the service runs from)',
  ),
  siteUrl: text(
    '--site-url <url>',
    "the public address the pages name (default: $REDIS_BENCHDB_SITE_URL, else the service's own http://HOST:PORT)",
  ),
  siteDebounce: numberFlag(
    '--site-debounce <ms>',
    'a new result waits this long for others to join its build',
    DEFAULT_SITE_DEBOUNCE_MS,
    { min: 0 },
  ),
  pngCacheMb: numberFlag(
    '--png-cache-mb <n>',
    'chart PNGs are drawn from their SVG when first asked for, and kept in $REDIS_BENCHDB_PNG_CACHE (else DIR/png-cache) up to this many MiB, the least recently asked for deleted first',
    DEFAULT_PNG_CACHE_MB,
    { min: 1 },
  ),
});

const BACKUP_FLAGS = grouped('Backups (restore puts one back):', {
  backupDir: text('--backup-dir <dir>', "take online backups of the database (SQLite's backup API) into DIR"),
  backupEveryMin: numberFlag('--backup-every-min <n>', 'minutes between backups', DEFAULT_BACKUP_EVERY_MIN, {
    min: 1,
  }),
  backupKeep: numberFlag('--backup-keep <n>', 'the newest N backups are kept', DEFAULT_BACKUP_KEEP, {
    min: 1,
  }),
});

const FLAGS = { ...SERVICE_FLAGS, ...PUBLISHING_FLAGS, ...BACKUP_FLAGS };
/** The flags given, each parsed; one not given is undefined, and serveOptionsOf applies its default. */
type Flags = FlagsOf<typeof FLAGS>;

/** The flags that mean nothing without another, each with what it needs. */
const NEEDS: readonly [keyof Flags, keyof Flags, string][] = [
  ...(['siteBuild', 'siteUrl', 'siteDebounce', 'pngCacheMb'] as const).map(
    (k) => [k, 'siteDir', 'DIR (where the built site goes)'] as [keyof Flags, keyof Flags, string],
  ),
  ...(['backupEveryMin', 'backupKeep'] as const).map(
    (k) => [k, 'backupDir', 'DIR (where the backups go)'] as [keyof Flags, keyof Flags, string],
  ),
];

/**
 * `redis-benchdb-server [flags]`: its flags and help; its run() gets startServer's options. A stray
 * word is refused here rather than by commander, whose message would not name it.
 */
export function serveCommand(env: NodeJS.ProcessEnv, serve: (options: ServeOptions) => void | Promise<void>) {
  return defineCommand({
    name: 'redis-benchdb-server',
    description: DESCRIPTION,
    usage: '[options] [command]',
    argument: { usage: '[words...]', help: '' },
    options: FLAGS,
    helpAfter: EXAMPLES,
    // Not async: a refusal reaches the caller of parse() as thrown, before any await.
    run(flags, [word]) {
      if (word !== undefined)
        throw new UsageError(
          `unknown command '${word}' (the service takes flags; its one command is restore)`,
        );
      const options = serveOptionsOf(flags, env);
      return Promise.resolve(serve(options)).then(() => 0);
    },
  });
}

/** The flag a key stands for, as the user types it: `--site-dir`. */
const flagName = (key: keyof Flags) => FLAGS[key].flags.split(' ')[0];

/** startServer's options from the flags given, after the checks between them. */
function serveOptionsOf(f: Flags, env: NodeJS.ProcessEnv): ServeOptions {
  for (const [flag, needs, what] of NEEDS)
    if (f[flag] !== undefined && f[needs] === undefined)
      throw new UsageError(`${flagName(flag)} needs ${flagName(needs)} ${what}`);
  const rateLimit = {
    perIpPerMinute: f.perIpPerMinute ?? limits.perIpPerMinute,
    perKeyPerMinute: f.perKeyPerMinute ?? limits.perKeyPerMinute,
    newKeysPerNetworkPerHour: f.newKeysPerHour ?? limits.newKeysPerNetworkPerHour,
  };
  return {
    dbPath: f.db ?? defaultDatabasePath(env),
    host: f.host ?? DEFAULT_HOST,
    port: f.port ?? DEFAULT_PORT,
    requestTimeoutMs: f.requestTimeout ?? DEFAULT_APP_OPTIONS.requestTimeoutMs,
    bodyLimitBytes: f.bodyLimit ?? DEFAULT_APP_OPTIONS.bodyLimitBytes,
    logger: f.log === true,
    checkThreads: f.checkThreads ?? DEFAULT_APP_OPTIONS.checkThreads,
    maxQueuedSubmissions: f.maxQueued ?? DEFAULT_APP_OPTIONS.maxQueuedSubmissions,
    minFreeBytes: f.minFreeMb !== undefined ? f.minFreeMb * MIB : DEFAULT_APP_OPTIONS.minFreeBytes,
    rateLimit,
    ipv6PrefixLength: f.ipv6Prefix ?? DEFAULT_APP_OPTIONS.ipv6PrefixLength,
    ...(f.trustProxy !== undefined ? { trustProxy: f.trustProxy } : {}),
    ...publicUrlOf(f, env),
    ...publishing(f, env),
    ...(f.projectKeys !== undefined ? { projectKeysDir: f.projectKeys } : {}),
  };
}

function publicUrlOf(f: Flags, env: NodeJS.ProcessEnv): { publicUrl?: string } {
  const url =
    f.publicUrl ?? (env.REDIS_BENCHDB_PUBLIC_URL ? publicUrl(env.REDIS_BENCHDB_PUBLIC_URL) : undefined);
  return url !== undefined ? { publicUrl: url } : {};
}

function publishing(f: Flags, env: NodeJS.ProcessEnv): Pick<ServeOptions, 'site' | 'backup'> {
  const out: Pick<ServeOptions, 'site' | 'backup'> = {};
  const siteUrl = f.siteUrl ?? (env.REDIS_BENCHDB_SITE_URL || undefined);
  if (f.siteDir !== undefined)
    out.site = {
      dir: f.siteDir,
      ...(f.siteBuild !== undefined ? { build: f.siteBuild } : {}),
      ...(siteUrl !== undefined ? { url: siteUrl.replace(/\/+$/, '') } : {}),
      debounceMs: f.siteDebounce ?? DEFAULT_SITE_DEBOUNCE_MS,
      pngCacheBytes: (f.pngCacheMb ?? DEFAULT_PNG_CACHE_MB) * MIB,
    };
  if (f.backupDir !== undefined)
    out.backup = {
      dir: f.backupDir,
      intervalMs: (f.backupEveryMin ?? DEFAULT_BACKUP_EVERY_MIN) * 60_000,
      keep: f.backupKeep ?? DEFAULT_BACKUP_KEEP,
    };
  return out;
}
