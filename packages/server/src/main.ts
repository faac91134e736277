#!/usr/bin/env node
// The service as a process of its own: the `redis-benchdb-server` bin (flags: args.ts, or --help).
// Prints `listening on http://HOST:PORT` once it accepts connections (port 0 picks a free one, so a
// parent process reads the port from that line), and closes gracefully on SIGTERM or SIGINT.
import { parseServerArgs, USAGE, UsageError } from './args.js';
import { startServer } from './serve.js';

// `restore BACKUP --db PATH` is a command of its own, for a stopped service (restore-command.ts).
if (process.argv[2] === 'restore') {
  const { restoreCommand } = await import('./restore-command.js');
  process.exit(await restoreCommand(process.argv.slice(3)));
}

function parsed() {
  try {
    return parseServerArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(
      `redis-benchdb-server: ${e.message}\n${USAGE.split('\n')[0]}\n(--help lists every flag)\n`,
    );
    process.exit(2);
  }
}

const args = parsed();
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const server = await startServer(args.options).catch((e: unknown) => {
  // A port in use, a database that cannot be opened or is too new: say which, without a stack.
  process.stderr.write(`redis-benchdb-server: cannot start: ${(e as Error).message}\n`);
  process.exit(1);
});
process.stdout.write(`listening on ${server.url}\n`);
process.stderr.write(`redis-benchdb-server: database ${args.options.dbPath}; Ctrl-C to stop\n`);

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
