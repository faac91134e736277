import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configDir } from './signing-key.js';

/**
 * The public ingest service that `run --submit` and `submit` use when none is named: the one place
 * it is set. Empty until a public service is deployed; until then a submission with no --server
 * waits in the spool (nothing is lost) and the CLI prints the command that sends it later.
 */
export const DEFAULT_SERVER = '';

/** How to name a service, for a message that says none was named. */
export function noServerHelp(env: NodeJS.ProcessEnv = process.env): string {
  return `pass --server URL, set REDIS_BENCHDB_SERVER, or put {"server": "URL"} in ${join(configDir(env), 'config.json')}`;
}

/** --server, else $REDIS_BENCHDB_SERVER, else "server" in <config dir>/config.json, else DEFAULT_SERVER, else null. */
export async function serverUrl(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | null> {
  if (flag) return trim(flag);
  if (env.REDIS_BENCHDB_SERVER) return trim(env.REDIS_BENCHDB_SERVER);
  try {
    const config = JSON.parse(await readFile(join(configDir(env), 'config.json'), 'utf8')) as {
      server?: unknown;
    };
    if (typeof config.server === 'string' && config.server) return trim(config.server);
  } catch {
    // no config file, or not JSON: fall through to the default
  }
  return DEFAULT_SERVER ? trim(DEFAULT_SERVER) : null;
}

const trim = (url: string) => url.replace(/\/+$/, '');
