import { parseArgs } from 'node:util';
import { defaultDatabasePath } from '@redis-benchdb/db';
import { DEFAULT_APP_OPTIONS } from './options.js';
import { DEFAULT_PNG_CACHE_MB, DEFAULT_SITE_DEBOUNCE_MS, type ServeOptions } from './serve.js';
import { invalidProxyEntry, splitProxyList } from './trust-proxy.js';

/** The bin's default port; the library's is 0 (a free one), which suits tests, not a service. */
export const DEFAULT_PORT = 8080;
export const DEFAULT_BACKUP_EVERY_MIN = 60;
export const DEFAULT_BACKUP_KEEP = 24;

export const USAGE = `usage: redis-benchdb-server [--db PATH] [--host H] [--port N] [options]
       redis-benchdb-server restore BACKUP --db PATH

The redis-benchdb ingest service: POST /api/v1/results takes signed results into a SQLite database,
GET /api/v1/results/:id gives them back, POST /api/v1/results/:id/retract unlists one,
GET /api/v1/health says it is up. Prints "listening on http://HOST:PORT" on stdout once it accepts
connections; SIGTERM or Ctrl-C finishes the requests in flight and closes the database.

  --db PATH                 the SQLite file, created if missing
                            (default: $REDIS_BENCHDB_DB, else ~/.local/share/redis-benchdb/benchdb.sqlite)
  --host H                  address to listen on (default: 127.0.0.1; 0.0.0.0 or :: for every interface)
  --port N                  port to listen on, 0 for a free one (default: ${DEFAULT_PORT})
  --request-timeout MS      time to receive a whole request, headers and body, and the longest a
                            connection may sit idle (default: ${DEFAULT_APP_OPTIONS.requestTimeoutMs})
  --body-limit BYTES        the largest body accepted; larger ones get 413 (default: ${DEFAULT_APP_OPTIONS.bodyLimitBytes})
  --per-ip-per-minute N     requests from one network per minute: an IPv4 address, or an IPv6 address's
                            first --ipv6-prefix bits (default: ${DEFAULT_APP_OPTIONS.rateLimit.perIpPerMinute})
  --ipv6-prefix N           the IPv6 prefix length a network is counted by, 1 to 128 (default: ${DEFAULT_APP_OPTIONS.ipv6PrefixLength})
  --per-key-per-minute N    submissions signed by one key per minute (default: ${DEFAULT_APP_OPTIONS.rateLimit.perKeyPerMinute})
  --new-keys-per-hour N     signing keys with no result here yet that one network may bring in per hour
                            (default: ${DEFAULT_APP_OPTIONS.rateLimit.newKeysPerNetworkPerHour})
  --trust-proxy LIST        the reverse proxies in front of the service, comma-separated addresses or
                            CIDR blocks (e.g. 10.0.0.5 or 172.16.0.0/12): a request from one counts
                            against the address its X-Forwarded-For names. Without it (the default),
                            every request counts against the address it came from, and X-Forwarded-For
                            is ignored
  --check-threads N         worker threads that check submissions off the event loop
                            (default: the CPUs available less one, at least 1; here ${DEFAULT_APP_OPTIONS.checkThreads})
  --max-queued N            submissions being checked or waiting for a thread; more get 503 with
                            retry-after (default: ${DEFAULT_APP_OPTIONS.maxQueuedSubmissions})
  --min-free-mb N           free space the database's disk must keep: below it, submissions get 507
                            and health says not ready (default: ${DEFAULT_APP_OPTIONS.minFreeBytes / 1024 / 1024})
  --log                     a JSON line per request on stdout (pino), with the stack of any 500
  --project-keys DIR        public keys that are all the project's (as data/results/keys/: one
                            <fingerprint hex>.pub.pem each): their results count as one signer
  -h, --help                this text

Publishing (the site on the same origin; docs/DEPLOY.md):
  --site-dir DIR            serve the static site built into DIR at /, and rebuild it after new results:
                            one build at a time, into a fresh directory swapped in only when it succeeds.
                            A result page not built yet shows that the result was received, and when its
                            page should appear; GET /api/v1/health has the site's state
  --site-build CMD          the shell command that builds the site; it gets REDIS_BENCHDB_DB,
                            REDIS_BENCHDB_SITE_OUT (the directory to write) and REDIS_BENCHDB_SITE_URL
                            (default: node scripts/site-build.mjs of the clone the service runs from)
  --site-url URL            the public address the pages name (default: $REDIS_BENCHDB_SITE_URL, else
                            the service's own http://HOST:PORT)
  --site-debounce MS        a new result waits this long for others to join its build (default: ${DEFAULT_SITE_DEBOUNCE_MS})
  --png-cache-mb N          chart PNGs are drawn from their SVG when first asked for, and kept in
                            $REDIS_BENCHDB_PNG_CACHE (else DIR/png-cache) up to N MiB, the least
                            recently asked for deleted first (default: ${DEFAULT_PNG_CACHE_MB})
  --backup-dir DIR          take online backups of the database (SQLite's backup API) into DIR
  --backup-every-min N      minutes between backups (default: ${DEFAULT_BACKUP_EVERY_MIN})
  --backup-keep N           the newest N backups are kept (default: ${DEFAULT_BACKUP_KEEP})

Restoring a backup (stop the service first; restore --help says more):
  restore BACKUP --db PATH  check BACKUP with PRAGMA integrity_check and put it in place of the database
                            PATH, keeping the one it replaces beside it; refused while PATH is open

Examples:
  redis-benchdb-server --db /tmp/service.sqlite --port 8080
  (from a clone of the repository: pnpm -s redis-benchdb-server --db /tmp/service.sqlite --port 8080)
  pnpm -s redis-benchdb-server --db /tmp/service.sqlite --site-dir /tmp/site --backup-dir /tmp/backups`;

/** A command line the service cannot start from; main.ts prints it with the usage and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly code = 'USAGE';
}

export type ParsedArgs = { help: true } | { help: false; options: ServeOptions };

/** The bin's flags as startServer's options: every number checked, defaults filled in. */
export function parseServerArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ParsedArgs {
  let values: ReturnType<typeof parse>;
  try {
    values = parse(argv);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return { help: true };
  const limits = DEFAULT_APP_OPTIONS.rateLimit;
  const port = integer('port', values.port, DEFAULT_PORT, 0);
  if (port > 65535) throw new UsageError(`invalid --port: ${values.port} (0 to 65535; 0 picks a free one)`);
  const publishing = publishOptions(values, env);
  return {
    help: false,
    options: {
      dbPath: values.db ?? defaultDatabasePath(env),
      host: values.host ?? '127.0.0.1',
      port,
      requestTimeoutMs: integer(
        'request-timeout',
        values['request-timeout'],
        DEFAULT_APP_OPTIONS.requestTimeoutMs,
        1,
      ),
      bodyLimitBytes: integer('body-limit', values['body-limit'], DEFAULT_APP_OPTIONS.bodyLimitBytes, 1),
      logger: values.log,
      checkThreads: integer('check-threads', values['check-threads'], DEFAULT_APP_OPTIONS.checkThreads, 1),
      maxQueuedSubmissions: integer(
        'max-queued',
        values['max-queued'],
        DEFAULT_APP_OPTIONS.maxQueuedSubmissions,
        1,
      ),
      minFreeBytes:
        integer('min-free-mb', values['min-free-mb'], DEFAULT_APP_OPTIONS.minFreeBytes / 1024 / 1024, 0) *
        1024 *
        1024,
      rateLimit: {
        perIpPerMinute: integer('per-ip-per-minute', values['per-ip-per-minute'], limits.perIpPerMinute, 1),
        perKeyPerMinute: integer(
          'per-key-per-minute',
          values['per-key-per-minute'],
          limits.perKeyPerMinute,
          1,
        ),
        newKeysPerNetworkPerHour: integer(
          'new-keys-per-hour',
          values['new-keys-per-hour'],
          limits.newKeysPerNetworkPerHour,
          1,
        ),
      },
      ipv6PrefixLength: ipv6Prefix(values['ipv6-prefix']),
      ...trustProxy(values['trust-proxy']),
      ...publishing,
      ...(values['project-keys'] !== undefined ? { projectKeysDir: values['project-keys'] } : {}),
    },
  };
}

function ipv6Prefix(text: string | undefined): number {
  const n = integer('ipv6-prefix', text, DEFAULT_APP_OPTIONS.ipv6PrefixLength, 1);
  if (n > 128)
    throw new UsageError(`invalid --ipv6-prefix: ${text} (1 to 128: 64 counts a customer's /64 as one)`);
  return n;
}

function trustProxy(text: string | undefined): Pick<ServeOptions, 'trustProxy'> {
  if (text === undefined) return {};
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
  return { trustProxy: list };
}

function publishOptions(
  values: ReturnType<typeof parse>,
  env: NodeJS.ProcessEnv,
): Pick<ServeOptions, 'site' | 'backup'> {
  for (const flag of ['site-build', 'site-url', 'site-debounce', 'png-cache-mb'] as const)
    if (values[flag] !== undefined && values['site-dir'] === undefined)
      throw new UsageError(`--${flag} needs --site-dir DIR (where the built site goes)`);
  for (const flag of ['backup-every-min', 'backup-keep'] as const)
    if (values[flag] !== undefined && values['backup-dir'] === undefined)
      throw new UsageError(`--${flag} needs --backup-dir DIR (where the backups go)`);
  const out: Pick<ServeOptions, 'site' | 'backup'> = {};
  const siteUrl = values['site-url'] ?? (env.REDIS_BENCHDB_SITE_URL || undefined);
  if (values['site-dir'] !== undefined)
    out.site = {
      dir: values['site-dir'],
      ...(values['site-build'] !== undefined ? { build: values['site-build'] } : {}),
      ...(siteUrl !== undefined ? { url: siteUrl.replace(/\/+$/, '') } : {}),
      debounceMs: integer('site-debounce', values['site-debounce'], DEFAULT_SITE_DEBOUNCE_MS, 0),
      pngCacheBytes: integer('png-cache-mb', values['png-cache-mb'], DEFAULT_PNG_CACHE_MB, 1) * 1024 * 1024,
    };
  if (values['backup-dir'] !== undefined)
    out.backup = {
      dir: values['backup-dir'],
      intervalMs:
        integer('backup-every-min', values['backup-every-min'], DEFAULT_BACKUP_EVERY_MIN, 1) * 60_000,
      keep: integer('backup-keep', values['backup-keep'], DEFAULT_BACKUP_KEEP, 1),
    };
  return out;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      db: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'request-timeout': { type: 'string' },
      'body-limit': { type: 'string' },
      'per-ip-per-minute': { type: 'string' },
      'per-key-per-minute': { type: 'string' },
      'new-keys-per-hour': { type: 'string' },
      'ipv6-prefix': { type: 'string' },
      'check-threads': { type: 'string' },
      'max-queued': { type: 'string' },
      'min-free-mb': { type: 'string' },
      'trust-proxy': { type: 'string' },
      log: { type: 'boolean', default: false },
      'project-keys': { type: 'string' },
      'site-dir': { type: 'string' },
      'site-build': { type: 'string' },
      'site-url': { type: 'string' },
      'site-debounce': { type: 'string' },
      'png-cache-mb': { type: 'string' },
      'backup-dir': { type: 'string' },
      'backup-every-min': { type: 'string' },
      'backup-keep': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;
}

function integer(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(n) || n < min)
    throw new UsageError(`invalid --${name}: ${text} (a whole number, at least ${min})`);
  return n;
}
