import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the CLI keeps its database when not told: per user, following the XDG base directories, so
 * that it does not depend on the directory the command runs in. The repository's `db:build` passes
 * `--db data/benchdb.sqlite` instead.
 *
 * `$REDIS_BENCHDB_DB`, else `$XDG_DATA_HOME/redis-benchdb/benchdb.sqlite`, else
 * `~/.local/share/redis-benchdb/benchdb.sqlite`. Empty variables count as unset, as the XDG spec says.
 */
export function defaultDatabasePath(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (env.REDIS_BENCHDB_DB) return env.REDIS_BENCHDB_DB;
  // The spec requires an absolute path; a relative one "should be ignored".
  const xdg = env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : join(home, '.local', 'share');
  return join(xdg, 'redis-benchdb', 'benchdb.sqlite');
}
