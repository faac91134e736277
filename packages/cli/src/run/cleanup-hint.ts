import { resolve } from 'node:path';
import type { Target } from '@redis-benchdb/engine';
import { cliName, shellQuote } from '../invocation.js';

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
