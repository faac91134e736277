import { defaultDatabasePath } from '@redis-benchdb/db';
import { CliError, EXIT_USAGE } from '../errors.js';

/** `redis-benchdb serve`: the ingest HTTP service on the local database, until Ctrl-C or SIGTERM. */
export async function serveCommand(flags: { db?: string; port?: string; host?: string }): Promise<number> {
  const port = Number(flags.port ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CliError(
      `invalid port: "${flags.port}" (expected 0 to 65535; 0 picks a free one)`,
      'ERR_USAGE',
      EXIT_USAGE,
    );
  }
  // Loaded only here: no other command needs the HTTP framework.
  const { startServer } = await import('@redis-benchdb/server');
  const dbPath = flags.db ?? defaultDatabasePath();
  const server = await startServer({ dbPath, host: flags.host ?? '127.0.0.1', port });
  process.stderr.write(
    `redis-benchdb ingest service listening on ${server.url} (database ${dbPath}); Ctrl-C to stop\n`,
  );
  process.stdout.write(`${server.url}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}
