import { parseArgs } from 'node:util';
import { defaultDatabasePath } from '@redis-benchdb/db';
import { DEFAULT_APP_OPTIONS } from './options.js';
import type { ServeOptions } from './serve.js';

/** The bin's default port; the library's is 0 (a free one), which suits tests, not a service. */
export const DEFAULT_PORT = 8080;

export const USAGE = `usage: redis-benchdb-server [--db PATH] [--host H] [--port N] [options]

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
  --per-ip-per-minute N     requests from one address per minute (default: ${DEFAULT_APP_OPTIONS.rateLimit.perIpPerMinute})
  --per-key-per-minute N    submissions signed by one key per minute (default: ${DEFAULT_APP_OPTIONS.rateLimit.perKeyPerMinute})
  --check-threads N         worker threads that check submissions off the event loop
                            (default: the CPUs available less one, at least 1; here ${DEFAULT_APP_OPTIONS.checkThreads})
  --max-queued N            submissions being checked or waiting for a thread; more get 503 with
                            retry-after (default: ${DEFAULT_APP_OPTIONS.maxQueuedSubmissions})
  --log                     a JSON line per request on stdout (pino), with the stack of any 500
  -h, --help                this text

Example:
  redis-benchdb-server --db /tmp/service.sqlite --port 8080
  (from a clone of the repository: pnpm -s redis-benchdb-server --db /tmp/service.sqlite --port 8080)`;

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
      rateLimit: {
        perIpPerMinute: integer('per-ip-per-minute', values['per-ip-per-minute'], limits.perIpPerMinute, 1),
        perKeyPerMinute: integer(
          'per-key-per-minute',
          values['per-key-per-minute'],
          limits.perKeyPerMinute,
          1,
        ),
      },
    },
  };
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
      'check-threads': { type: 'string' },
      'max-queued': { type: 'string' },
      log: { type: 'boolean', default: false },
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
