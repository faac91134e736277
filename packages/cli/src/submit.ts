import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { defaultDatabasePath } from '@redis-benchdb/db';
import { configDir } from './signing-key.js';

/**
 * Submitting talks to the ingest service over HTTP only. A submission the service could not take
 * (unreachable, or a 5xx) waits in a spool beside the local database until `submit --pending`;
 * one it refused (4xx) moves to spool/refused with the reason. Nothing is ever dropped.
 */

/** --server, else $REDIS_BENCHDB_SERVER, else "server" in <config dir>/config.json, else null. */
export async function serverUrl(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | null> {
  if (flag) return flag.replace(/\/+$/, '');
  if (env.REDIS_BENCHDB_SERVER) return env.REDIS_BENCHDB_SERVER.replace(/\/+$/, '');
  try {
    const config = JSON.parse(await readFile(join(configDir(env), 'config.json'), 'utf8')) as {
      server?: unknown;
    };
    return typeof config.server === 'string' && config.server ? config.server.replace(/\/+$/, '') : null;
  } catch {
    return null;
  }
}

export function spoolDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(defaultDatabasePath(env)), 'spool');
}

export type SubmitOutcome =
  | { kind: 'stored'; id: string; pagePath: string; duplicate: boolean }
  | { kind: 'refused'; status: number; code: string; message: string }
  | { kind: 'unavailable'; reason: string };

/** POST one signed envelope. Never throws: the outcome says what happened. */
export async function postEnvelope(url: string, body: string, timeoutMs = 15_000): Promise<SubmitOutcome> {
  let res: Response;
  try {
    res = await fetch(`${url}/api/v1/results`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    // fetch says only "fetch failed"; the reason (ECONNREFUSED, a timeout...) is in its cause.
    const cause = (err as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } })
      .cause;
    const why = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (err as Error).message;
    return { kind: 'unavailable', reason: `${url} did not answer (${why})` };
  }
  const text = await res.text();
  let json: {
    id?: string;
    pagePath?: string;
    duplicate?: boolean;
    error?: { code?: string; message?: string };
  } = {};
  try {
    json = JSON.parse(text);
  } catch {
    // A proxy's HTML error page, say: the status still tells what happened.
  }
  if (res.status === 201 || res.status === 200) {
    return {
      kind: 'stored',
      id: json.id ?? '',
      pagePath: json.pagePath ?? '',
      duplicate: res.status === 200,
    };
  }
  if (res.status >= 500 || res.status === 429)
    return {
      kind: 'unavailable',
      reason: `${url} answered ${res.status}${json.error?.message ? `: ${json.error.message}` : ''}`,
    };
  return {
    kind: 'refused',
    status: res.status,
    code: json.error?.code ?? 'HTTP_ERROR',
    message: json.error?.message ?? text.slice(0, 200),
  };
}

/** Keep a signed envelope for later: the file name is its content id when known, so it is kept once. */
export async function spool(
  body: string,
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const dir = spoolDir(env);
  await mkdir(dir, { recursive: true });
  const path = join(dir, name.endsWith('.json') ? name : `${name}.json`);
  await writeFile(`${path}.tmp`, body);
  await rename(`${path}.tmp`, path);
  return path;
}

export async function pendingFiles(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  try {
    const dir = spoolDir(env);
    return (await readdir(dir))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}

/** A refused submission leaves the queue but is kept, with the service's reason beside it. */
export async function setAside(path: string, reason: string): Promise<string> {
  const dir = join(dirname(path), 'refused');
  await mkdir(dir, { recursive: true });
  const target = join(dir, path.slice(dirname(path).length + 1));
  await rename(path, target);
  await writeFile(`${target}.reason.txt`, `${reason}\n`);
  return target;
}
