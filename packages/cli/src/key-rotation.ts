import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { signKeyRotation } from '@redis-benchdb/db';
import { generateSigningKey, keyFingerprint, publicKeyFromPrivate } from '@redis-benchdb/result';
import { CliError } from './errors.js';
import { cliName } from './invocation.js';
import { postJson, refusal } from './post-json.js';
import { configDir, createKey, keyPaths, loadKey, type SigningKey } from './signing-key.js';

/** Written with mode 0600 from the start, never over an existing file. */
async function writePrivate(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

/**
 * Copy the signing key to `signing-key.<UTC time>.pem` beside it (mode 0600), before anything replaces
 * it: results it signed stay retractable with it. The path, or null when there is no key.
 */
export async function backupKey(dir = configDir(), now = new Date()): Promise<string | null> {
  const { privateKey } = keyPaths(dir);
  let pem: string;
  try {
    pem = await readFile(privateKey, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replaceAll(':', '-');
  for (let n = 1; ; n++) {
    const path = join(dir, `signing-key.${stamp}${n > 1 ? `-${n}` : ''}.pem`);
    try {
      await writePrivate(path, pem);
      return path;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

export interface Rotated {
  old: SigningKey;
  key: SigningKey;
  backup: string;
  /** The signed statement, kept for other services. */
  statementPath: string;
  /** The service had it before. */
  alreadyRecorded: boolean;
}

/**
 * Make a new key whose first act is a statement, signed by the old key, that names it as successor;
 * the service at `url` records it, and only then does the new key replace the old one (kept as a dated
 * backup). If the service refuses, nothing changes here. The new key waits in `signing-key.next.pem`
 * while the service is asked, so that a crash then loses no key the service knows of.
 */
export async function rotateKey(url: string, dir = configDir()): Promise<Rotated> {
  const old = await loadKey(dir);
  if (!old)
    throw new CliError(`no signing key to rotate in ${dir}: ${cliName()} keygen makes one`, 'ERR_NO_KEY');
  const pair = generateSigningKey();
  const next = join(dir, 'signing-key.next.pem');
  await rm(next, { force: true });
  await writePrivate(next, pair.privateKeyPem);
  const statement = signKeyRotation(old.privateKeyPem, pair.publicKeyPem);
  const reply = await postJson(url, '/api/v1/keys/rotations', statement).catch(async (e: unknown) => {
    await rm(next, { force: true });
    throw e;
  });
  if (!reply.ok) {
    await rm(next, { force: true });
    throw new CliError(`${url} ${refusal(reply)}; your key is unchanged`, 'ERR_REFUSED');
  }
  const backup = (await backupKey(dir))!;
  const key = await createKey({ force: true, dir, pair });
  await rm(next, { force: true });
  await mkdir(join(dir, 'rotations'), { recursive: true, mode: 0o700 });
  const hex = keyFingerprint(publicKeyFromPrivate(old.privateKeyPem)).slice(
    'sha256:'.length,
    'sha256:'.length + 16,
  );
  const statementPath = join(dir, 'rotations', `${hex}.json`);
  await rm(statementPath, { force: true });
  await writePrivate(statementPath, `${JSON.stringify(statement)}\n`);
  return { old, key, backup, statementPath, alreadyRecorded: reply.status === 200 };
}
