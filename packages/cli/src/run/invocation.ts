import { realpathSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, join, resolve, sep } from 'node:path';
import type { Target } from '@redis-benchdb/engine';

/**
 * How the user started this CLI, so that a printed hint can be pasted as is: `npx redis-benchdb`
 * under npx, `pnpm -s redis-benchdb` from the repository's script, `redis-benchdb` when that name
 * on the user's PATH is this very file, else `/path/to/node /path/to/bin.js`.
 */
export function cliName(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv): string {
  const script = argv[1];
  // npx runs a package it fetched from its cache (~/.npm/_npx/<hash>/node_modules/...).
  if (script?.includes(`${sep}_npx${sep}`)) return 'npx redis-benchdb';
  if (env.npm_lifecycle_event === 'redis-benchdb')
    return env.npm_config_user_agent?.startsWith('pnpm')
      ? 'pnpm -s redis-benchdb'
      : 'npm run -s redis-benchdb --';
  const self = script ? real(script) : null;
  for (const dir of self ? (env.PATH ?? '').split(delimiter) : []) {
    if (!dir || real(join(dir, 'redis-benchdb')) !== self) continue;
    // node_modules/.bin is on PATH only inside npx or a package script, not in the user's shell.
    if (!dir.endsWith(join('node_modules', '.bin'))) return 'redis-benchdb';
    if (env.npm_command === 'exec') return 'npx redis-benchdb';
    break;
  }
  return script ? `${shellQuote(process.execPath)} ${shellQuote(script)}` : 'redis-benchdb';
}

/**
 * The flags that reach `target` again, password left out (it must not land in a log or a history).
 * Paths are absolute, so that the command works from any directory.
 */
export function connectionFlags(t: Target): string[] {
  const out: string[] = [];
  if (t.socket) out.push('-s', resolve(t.socket));
  else out.push('-h', t.host, '-p', String(t.port));
  if (t.user) out.push('--user', t.user);
  if (t.db) out.push('--dbnum', String(t.db));
  if (t.tls) {
    out.push('--tls');
    if (typeof t.tls === 'object') {
      if (t.tls.caFile) out.push('--cacert', resolve(t.tls.caFile));
      if (t.tls.certFile) out.push('--cert', resolve(t.tls.certFile));
      if (t.tls.keyFile) out.push('--key', resolve(t.tls.keyFile));
      if (t.tls.servername) out.push('--sni', t.tls.servername);
      if (t.tls.insecure) out.push('--insecure');
    }
  }
  if (t.cluster) out.push('--cluster');
  return out;
}

/**
 * The command that removes what a run left under `prefix`, and, when the server needs a password,
 * how to give it (REDISCLI_AUTH, as redis-cli reads it; `cleanup` reads it too).
 */
export function cleanupHint(target: Target, prefix: string | null): string {
  const words = ['cleanup', ...connectionFlags(target), ...(prefix ? ['--prefix', prefix, '--yes'] : [])];
  const cmd = `${cliName()} ${words.map(shellQuote).join(' ')}`;
  return target.password !== undefined && process.env.REDISCLI_AUTH !== target.password
    ? `REDISCLI_AUTH='<the password>' ${cmd}   (the password is left out: put it in REDISCLI_AUTH, or add -a)`
    : cmd;
}

/** `word` as one POSIX shell word: bare when safe, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** 128 + the signal's number: what a shell reports for a process a signal ended (130 for SIGINT). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 2);
}

function real(path: string): string | null {
  try {
    return statSync(path).isFile() ? realpathSync(path) : null;
  } catch {
    return null;
  }
}
