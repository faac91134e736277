import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError, EXIT_USAGE } from './errors.js';
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
  if (flag) return withoutCredentials(flag, '--server');
  if (env.REDIS_BENCHDB_SERVER) return withoutCredentials(env.REDIS_BENCHDB_SERVER, '$REDIS_BENCHDB_SERVER');
  const file = join(configDir(env), 'config.json');
  let config: { server?: unknown } = {};
  try {
    config = JSON.parse(await readFile(file, 'utf8')) as { server?: unknown };
  } catch {
    // no config file, or not JSON: fall through to the default
  }
  if (typeof config.server === 'string' && config.server)
    return withoutCredentials(config.server, `"server" in ${file}`);
  return DEFAULT_SERVER ? trim(DEFAULT_SERVER) : null;
}

/**
 * A service address with a user or password in it (`http://user:token@host`) is refused: the address
 * is printed, kept beside a spooled result and shown in hints, so the token would end up on screen
 * and on disk. The service needs none (a submission is signed by the user's key); the message never
 * repeats the password.
 */
function withoutCredentials(raw: string, where: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new CliError(
      `${where} is not a URL: give the service's address, like http://127.0.0.1:8080`,
      'ERR_SERVER_URL',
      EXIT_USAGE,
    );
  }
  if (url.username || url.password) {
    const shown = `${url.protocol}//${url.password ? '<user>:<password>' : '<user>'}@${url.host}`;
    throw new CliError(
      `${where} holds credentials (${shown}): they would be printed and kept beside spooled results, so they are refused. ` +
        `The service needs none, since every submission is signed by your key: give ${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname} instead. Nothing was sent or written`,
      'ERR_SERVER_CREDENTIALS',
      EXIT_USAGE,
    );
  }
  return trim(raw.trim());
}

const trim = (url: string) => url.replace(/\/+$/, '');
