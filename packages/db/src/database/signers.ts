import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyFingerprint } from '@redis-benchdb/result';
import type { BenchDb } from './open.js';

/**
 * The signer this project's own data keys stand for (data/results/keys/): every result they sign is
 * the project's, however many keys its sessions have made.
 */
export const PROJECT_SIGNER = 'redis-benchdb project';

/** A directory of public keys that cannot be read as one signer's keys; the message says which file and why. */
export class SignerKeysError extends Error {
  override name = 'SignerKeysError';
  readonly code = 'SIGNER_KEYS';
}

/** The file name a key's public half has in such a directory: its fingerprint's hex and `.pub.pem`. */
export const keyFileName = (fingerprint: string) => `${fingerprint.replace(/^sha256:/, '')}.pub.pem`;

/**
 * The fingerprints of the public keys in `dir`, one `<hex>.pub.pem` file each (the layout of
 * data/results/keys/). Refuses a file that is not an Ed25519 public key, or that is named after
 * another key: a misnamed file would count a stranger's results as the signer's.
 */
export function readSignerKeys(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (e) {
    throw new SignerKeysError(`cannot read the key directory ${dir}: ${(e as Error).message}`);
  }
  const fingerprints: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const text = readFileSync(path, 'utf8');
    // Node derives a public key from a private one without a word: a private half here would pass.
    if (text.includes('PRIVATE KEY'))
      throw new SignerKeysError(
        `${path}: is a private key: move it out of this directory (never commit one) and put its public half in its place (openssl pkey -in <the moved file> -pubout prints it)`,
      );
    let fp: string;
    try {
      fp = keyFingerprint(text);
    } catch (e) {
      throw new SignerKeysError(
        `${path}: not an Ed25519 public key in PEM (${(e as Error).message}): the directory holds only public halves, each named <fingerprint hex>.pub.pem`,
      );
    }
    if (name !== keyFileName(fp))
      throw new SignerKeysError(`${path}: is the key ${fp}: rename it ${keyFileName(fp)}`);
    fingerprints.push(fp);
  }
  return fingerprints;
}

/**
 * Record that each key signs for `signer`, in one transaction. A key already named for another
 * signer is refused, not moved: its results would change hands silently.
 */
export function assignSigner(db: BenchDb, signer: string, fingerprints: readonly string[]): void {
  if (signer.trim() === '') throw new SignerKeysError('a signer needs a name');
  const find = db.sqlite.prepare<[string], { signer: string }>(
    'SELECT signer FROM key_signers WHERE key_fingerprint = ?',
  );
  const add = db.sqlite.prepare('INSERT OR IGNORE INTO key_signers (key_fingerprint, signer) VALUES (?, ?)');
  db.sqlite.transaction(() => {
    for (const fp of fingerprints) {
      const had = find.get(fp);
      if (had && had.signer !== signer)
        throw new SignerKeysError(
          `the key ${fp} already signs for ${JSON.stringify(had.signer)}, not ${JSON.stringify(signer)}`,
        );
      add.run(fp, signer);
    }
  })();
}

/** Who a key signs for: its signer's name, or the key itself when it was never assigned one. */
export function signerOf(db: BenchDb, fingerprint: string): string {
  const row = db.sqlite
    .prepare<[string], { signer: string }>('SELECT signer FROM key_signers WHERE key_fingerprint = ?')
    .get(fingerprint);
  return row?.signer ?? fingerprint;
}

/** Every key assigned a signer, by signer then key. */
export function keySigners(db: BenchDb): { keyFingerprint: string; signer: string }[] {
  return db.sqlite
    .prepare<[], { keyFingerprint: string; signer: string }>(
      'SELECT key_fingerprint AS keyFingerprint, signer FROM key_signers ORDER BY signer, key_fingerprint',
    )
    .all();
}
