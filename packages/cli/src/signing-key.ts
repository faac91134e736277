import { chmod, mkdir, open, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { generateSigningKey, keyFingerprint, publicKeyFromPrivate } from '@redis-benchdb/result';
import { CliError } from './errors.js';
import { cliName } from './invocation.js';

/**
 * Where the signing key lives: $REDIS_BENCHDB_CONFIG_DIR, else $XDG_CONFIG_HOME/redis-benchdb,
 * else ~/.config/redis-benchdb. The private key is written with mode 0600 and never printed.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.REDIS_BENCHDB_CONFIG_DIR) return env.REDIS_BENCHDB_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'redis-benchdb');
}

export function keyPaths(dir = configDir()): { privateKey: string; publicKey: string } {
  return { privateKey: join(dir, 'signing-key.pem'), publicKey: join(dir, 'signing-key.pub.pem') };
}

export interface SigningKey {
  privateKeyPem: string;
  publicKeyPem: string;
  fingerprint: string;
  path: string;
}

/** Create a key pair (or store `pair`); refuses to replace an existing one unless `force`. */
export async function createKey(
  opts: { force?: boolean; dir?: string; pair?: { privateKeyPem: string; publicKeyPem: string } } = {},
): Promise<SigningKey> {
  const dir = opts.dir ?? configDir();
  const paths = keyPaths(dir);
  if (!opts.force && (await exists(paths.privateKey))) {
    const existing = await loadKey(dir);
    throw new CliError(
      `a signing key already exists at ${paths.privateKey} (${existing!.fingerprint}). Keep it: results you signed with it stay yours. To move to a new key that may still retract them: ${cliName()} keygen --rotate --server URL. Either way the old key is kept beside it as a dated backup. To replace it anyway: ${cliName()} keygen --force`,
      'ERR_KEY_EXISTS',
    );
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const { privateKeyPem, publicKeyPem } = opts.pair ?? generateSigningKey();
  // Created 0600 from the start (not chmod-ed after), so the key is never readable by others.
  const tmp = `${paths.privateKey}.${process.pid}.tmp`;
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(privateKeyPem);
  } finally {
    await handle.close();
  }
  await chmod(tmp, 0o600);
  await rename(tmp, paths.privateKey);
  await writeFile(paths.publicKey, publicKeyPem, { mode: 0o644 });
  return { privateKeyPem, publicKeyPem, fingerprint: keyFingerprint(publicKeyPem), path: paths.privateKey };
}

/** The stored key, or null when there is none. A key readable by others is refused. */
export async function loadKey(dir = configDir()): Promise<SigningKey | null> {
  const paths = keyPaths(dir);
  let privateKeyPem: string;
  try {
    privateKeyPem = await readFile(paths.privateKey, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const mode = (await stat(paths.privateKey)).mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new CliError(
      `the signing key ${paths.privateKey} is readable by other users (mode ${mode.toString(8)}): fix it with chmod 600 ${paths.privateKey}`,
      'ERR_KEY_MODE',
    );
  }
  const publicKeyPem = publicKeyFromPrivate(privateKeyPem);
  return { privateKeyPem, publicKeyPem, fingerprint: keyFingerprint(publicKeyPem), path: paths.privateKey };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
