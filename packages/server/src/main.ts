// The service as a process of its own:
//   node packages/server/dist/main.js --db PATH [--port N] [--host H] [--body-limit BYTES]
//        [--per-ip-per-minute N] [--per-key-per-minute N] [--log]
// Prints `listening on http://HOST:PORT` once it accepts connections (port 0 picks a free one, so a
// parent process reads the port from that line), and closes gracefully on SIGTERM or SIGINT.
import { parseArgs } from 'node:util';
import { DEFAULT_APP_OPTIONS } from './options.js';
import { DEFAULT_SERVE_OPTIONS, startServer } from './serve.js';

const USAGE =
  'usage: main.js --db PATH [--port N] [--host H] [--body-limit BYTES] [--per-ip-per-minute N] [--per-key-per-minute N] [--log]';

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function integer(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) fail(`invalid --${name}: ${text}`);
  return n;
}

function parse() {
  try {
    return parseArgs({
      options: {
        db: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        'body-limit': { type: 'string' },
        'per-ip-per-minute': { type: 'string' },
        'per-key-per-minute': { type: 'string' },
        // A JSON line per request on stdout (pino), and the stack of any 500 on it.
        log: { type: 'boolean', default: false },
      },
    }).values;
  } catch (e) {
    fail((e as Error).message);
  }
}

const args = parse();
if (!args.db) fail('missing --db');

const limits = DEFAULT_APP_OPTIONS.rateLimit;
const server = await startServer({
  dbPath: args.db,
  host: args.host ?? DEFAULT_SERVE_OPTIONS.host,
  port: integer('port', args.port, DEFAULT_SERVE_OPTIONS.port, 0),
  bodyLimitBytes: integer('body-limit', args['body-limit'], DEFAULT_APP_OPTIONS.bodyLimitBytes, 1),
  logger: args.log,
  rateLimit: {
    perIpPerMinute: integer('per-ip-per-minute', args['per-ip-per-minute'], limits.perIpPerMinute, 1),
    perKeyPerMinute: integer('per-key-per-minute', args['per-key-per-minute'], limits.perKeyPerMinute, 1),
  },
}).catch((e: unknown) => {
  // A port in use, a database that cannot be opened or is too new: say which, without a stack.
  process.stderr.write(`cannot start: ${(e as Error).message}\n`);
  process.exit(1);
});
process.stdout.write(`listening on ${server.url}\n`);

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    // Requests in flight are answered (and their submissions committed) before the database closes.
    server.close().then(
      () => {
        process.stdout.write(`closed on ${signal}\n`);
        process.exit(0);
      },
      (e: unknown) => {
        process.stderr.write(`error while closing: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  });
