import { defaultDatabasePath } from '@redis-benchdb/db';
import { Command, Option } from 'commander';
import { DEFAULT_APP_OPTIONS } from './options.js';
import { DEFAULT_PNG_CACHE_MB, DEFAULT_SITE_DEBOUNCE_MS, type ServeOptions } from './serve.js';
import { invalidProxyEntry, splitProxyList } from './trust-proxy.js';
import { UsageError } from './usage-error.js';

// The service's command: each flag written once, with its help, the default --help shows and the
// parser that refuses a bad value by naming the flag; then the checks between flags. The bin adds
// `restore` to it (program.ts).

/** The bin's default port; the library's is 0 (a free one), which suits tests, not a service. */
export const DEFAULT_PORT = 8080;
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

/** A flag whose value is a whole number, with its default. */
function numberFlag(flags: string, help: string, fallback: number, o: NumberFlag): Option {
  const name = flags.slice(2, flags.indexOf(' '));
  return new Option(flags, help)
    .default(fallback, o.shown)
    .argParser(wholeNumber(name, o.min, o.max, o.hint));
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

const SERVICE_FLAGS = (): Option[] => [
  new Option(
    '--db <path>',
    'the SQLite file, created if missing (default: $REDIS_BENCHDB_DB, else ~/.local/share/redis-benchdb/benchdb.sqlite)',
  ),
  new Option('--host <address>', 'address to listen on: 0.0.0.0 or :: for every interface').default(
    '127.0.0.1',
  ),
  numberFlag('--port <n>', 'port to listen on, 0 for a free one', DEFAULT_PORT, {
    min: 0,
    max: 65535,
    hint: '; 0 picks a free one',
  }),
  numberFlag(
    '--request-timeout <ms>',
    'time to receive a whole request, headers and body, and the longest a connection may sit idle',
    DEFAULT_APP_OPTIONS.requestTimeoutMs,
    { min: 1 },
  ),
  numberFlag(
    '--body-limit <bytes>',
    'the largest body accepted; larger ones get 413',
    DEFAULT_APP_OPTIONS.bodyLimitBytes,
    { min: 1 },
  ),
  numberFlag(
    '--per-ip-per-minute <n>',
    "API requests (not the site's files) from one network per minute: an IPv4 address, or an IPv6 address's first --ipv6-prefix bits",
    limits.perIpPerMinute,
    { min: 1 },
  ),
  numberFlag(
    '--ipv6-prefix <bits>',
    'the IPv6 prefix length a network is counted by',
    DEFAULT_APP_OPTIONS.ipv6PrefixLength,
    { min: 1, max: 128, hint: ": 64 counts a customer's /64 as one" },
  ),
  numberFlag('--per-key-per-minute <n>', 'submissions signed by one key per minute', limits.perKeyPerMinute, {
    min: 1,
  }),
  numberFlag(
    '--new-keys-per-hour <n>',
    'signing keys with no result here yet that one network may bring in per hour',
    limits.newKeysPerNetworkPerHour,
    { min: 1 },
  ),
  new Option(
    '--trust-proxy <list>',
    'the reverse proxies in front of the service, comma-separated addresses or CIDR blocks (e.g. 10.0.0.5,172.16.0.0/12): a request from one counts against the address its X-Forwarded-For names. Without it, every request counts against the address it came from, and X-Forwarded-For is ignored',
  ).argParser(proxyList),
  numberFlag(
    '--check-threads <n>',
    'worker threads that check submissions off the event loop',
    DEFAULT_APP_OPTIONS.checkThreads,
    { min: 1, shown: `the CPUs available less one, at least 1; here ${DEFAULT_APP_OPTIONS.checkThreads}` },
  ),
  numberFlag(
    '--max-queued <n>',
    'submissions being checked or waiting for a thread; more get 503 with retry-after',
    DEFAULT_APP_OPTIONS.maxQueuedSubmissions,
    { min: 1 },
  ),
  numberFlag(
    '--min-free-mb <n>',
    "free space the database's disk must keep: below it, submissions get 507 and health says not ready",
    DEFAULT_APP_OPTIONS.minFreeBytes / MIB,
    { min: 0 },
  ),
  new Option(
    '--public-url <url>',
    'the address clients reach the service by, e.g. https://benchdb.example.org behind a proxy: a retraction must name its origin, and one signed for another service is refused (default: $REDIS_BENCHDB_PUBLIC_URL, else --site-url, else the address it listens on)',
  ).argParser(publicUrl),
  new Option('--log', 'a JSON line per request on stdout (pino), with the stack of any 500'),
  new Option(
    '--project-keys <dir>',
    "public keys that are all the project's (as data/results/keys/: one <fingerprint hex>.pub.pem each): their results count as one signer",
  ),
];

const PUBLISHING_FLAGS = (): Option[] => [
  new Option(
    '--site-dir <dir>',
    'serve the static site built into DIR at /, and rebuild it after new results: one build at a time, into a fresh directory swapped in only when it succeeds. A result page not built yet says that the result was received, and when its page should appear; GET /api/v1/health has the site state',
  ),
  new Option(
    '--site-build <command>',
    'the shell command that builds the site; it gets REDIS_BENCHDB_DB, REDIS_BENCHDB_SITE_OUT (the directory to write) and REDIS_BENCHDB_SITE_URL (default: node scripts/site-build.mjs of the clone the service runs from)',
  ),
  new Option(
    '--site-url <url>',
    "the public address the pages name (default: $REDIS_BENCHDB_SITE_URL, else the service's own http://HOST:PORT)",
  ),
  numberFlag(
    '--site-debounce <ms>',
    'a new result waits this long for others to join its build',
    DEFAULT_SITE_DEBOUNCE_MS,
    { min: 0 },
  ),
  numberFlag(
    '--png-cache-mb <n>',
    'chart PNGs are drawn from their SVG when first asked for, and kept in $REDIS_BENCHDB_PNG_CACHE (else DIR/png-cache) up to this many MiB, the least recently asked for deleted first',
    DEFAULT_PNG_CACHE_MB,
    { min: 1 },
  ),
];

const BACKUP_FLAGS = (): Option[] => [
  new Option('--backup-dir <dir>', "take online backups of the database (SQLite's backup API) into DIR"),
  numberFlag('--backup-every-min <n>', 'minutes between backups', DEFAULT_BACKUP_EVERY_MIN, { min: 1 }),
  numberFlag('--backup-keep <n>', 'the newest N backups are kept', DEFAULT_BACKUP_KEEP, { min: 1 }),
];

/** What commander collects from the flags above (a number already checked by its parser). */
interface Flags {
  db?: string;
  host: string;
  port: number;
  requestTimeout: number;
  bodyLimit: number;
  perIpPerMinute: number;
  ipv6Prefix: number;
  perKeyPerMinute: number;
  newKeysPerHour: number;
  trustProxy?: string[];
  checkThreads: number;
  maxQueued: number;
  minFreeMb: number;
  log?: true;
  publicUrl?: string;
  projectKeys?: string;
  siteDir?: string;
  siteBuild?: string;
  siteUrl?: string;
  siteDebounce: number;
  pngCacheMb: number;
  backupDir?: string;
  backupEveryMin: number;
  backupKeep: number;
}

/** `redis-benchdb-server [flags]`: its flags and help; its action gets startServer's options. */
export function serveCommand(
  env: NodeJS.ProcessEnv,
  serve: (options: ServeOptions) => void | Promise<void>,
): Command {
  const cmd = new Command('redis-benchdb-server')
    .description(DESCRIPTION)
    .helpOption('-h, --help', 'show this help')
    .addHelpText('after', EXAMPLES);
  for (const option of SERVICE_FLAGS()) cmd.addOption(option);
  cmd.optionsGroup('Publishing (the site on the same origin; docs/DEPLOY.md):');
  for (const option of PUBLISHING_FLAGS()) cmd.addOption(option);
  cmd.optionsGroup('Backups (restore puts one back):');
  for (const option of BACKUP_FLAGS()) cmd.addOption(option);
  // Runs inside commander's parse, so a refusal reaches the caller as thrown, before any await.
  // A stray word is refused here rather than by commander, whose message would not name it.
  return cmd.allowExcessArguments().action((_flags: Flags, self: Command) => {
    const [word] = self.args;
    if (word !== undefined)
      throw new UsageError(`unknown command '${word}' (the service takes flags; its one command is restore)`);
    return serve(serveOptionsOf(self, env));
  });
}

/** startServer's options from the flags given, after the checks between them. */
function serveOptionsOf(cmd: Command, env: NodeJS.ProcessEnv): ServeOptions {
  const f = cmd.opts<Flags>();
  const typed = (flag: string) => cmd.getOptionValueSource(new Option(`--${flag}`).attributeName()) === 'cli';
  for (const flag of ['site-build', 'site-url', 'site-debounce', 'png-cache-mb'])
    if (typed(flag) && f.siteDir === undefined)
      throw new UsageError(`--${flag} needs --site-dir DIR (where the built site goes)`);
  for (const flag of ['backup-every-min', 'backup-keep'])
    if (typed(flag) && f.backupDir === undefined)
      throw new UsageError(`--${flag} needs --backup-dir DIR (where the backups go)`);
  return {
    dbPath: f.db ?? defaultDatabasePath(env),
    host: f.host,
    port: f.port,
    requestTimeoutMs: f.requestTimeout,
    bodyLimitBytes: f.bodyLimit,
    logger: f.log === true,
    checkThreads: f.checkThreads,
    maxQueuedSubmissions: f.maxQueued,
    minFreeBytes: f.minFreeMb * MIB,
    rateLimit: {
      perIpPerMinute: f.perIpPerMinute,
      perKeyPerMinute: f.perKeyPerMinute,
      newKeysPerNetworkPerHour: f.newKeysPerHour,
    },
    ipv6PrefixLength: f.ipv6Prefix,
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
      debounceMs: f.siteDebounce,
      pngCacheBytes: f.pngCacheMb * MIB,
    };
  if (f.backupDir !== undefined)
    out.backup = { dir: f.backupDir, intervalMs: f.backupEveryMin * 60_000, keep: f.backupKeep };
  return out;
}
