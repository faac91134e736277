#!/usr/bin/env node
// The service as a process of its own: the `redis-benchdb-server` bin (flags: args.ts, or --help;
// `restore`: restore-command.ts). Prints `listening on http://HOST:PORT` once it accepts connections
// (port 0 picks a free one, so a parent process reads the port from that line), and closes
// gracefully on SIGTERM or SIGINT.
import { runServerBin, serverProgram } from './program.js';
import { type ServeOptions, startServer } from './serve.js';

async function serve(options: ServeOptions): Promise<void> {
  const server = await startServer(options).catch((e: unknown) => {
    // A port in use, a database that cannot be opened or is too new: say which, without a stack.
    process.stderr.write(`redis-benchdb-server: cannot start: ${(e as Error).message}\n`);
    process.exit(1);
  });
  process.stdout.write(`listening on ${server.url}\n`);
  process.stderr.write(`redis-benchdb-server: database ${options.dbPath}; Ctrl-C to stop\n`);

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
}

// The service keeps the process alive once it listens; a usage error or a finished restore ends it.
process.exitCode = await runServerBin(serverProgram(process.env, serve), process.argv);
