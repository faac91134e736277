import { flag, text } from '@redis-benchdb/command';

// Options several commands share, written once.

/** --json, with what it prints ("print the outcome of each file as JSON"). */
export const json = (help: string) => flag('--json', help);

/** --db: the local database; `purpose` follows its name (", whose spool ..."). */
export const database = (purpose = '') =>
  text(
    '--db <path>',
    `the local SQLite database${purpose} (default: $REDIS_BENCHDB_DB or ~/.local/share/redis-benchdb/benchdb.sqlite)`,
  );

/** --server: the ingest service; `purpose` follows its name ("for --submit"). */
export const ingestServer = (purpose = '') =>
  text(
    '--server <url>',
    `the ingest service${purpose} (default: $REDIS_BENCHDB_SERVER, or "server" in config.json)`,
  );

export const CLOUD_METADATA = flag(
  '--cloud-metadata',
  "ask the cloud's metadata service (1 s limit) for the instance type; off by default",
);
