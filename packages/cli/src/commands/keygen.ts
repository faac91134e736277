import { createKey } from '../signing-key.js';

/** `redis-benchdb keygen`: make the Ed25519 key that signs results. Prints where, and the public fingerprint. */
export async function keygenCommand(flags: { force?: boolean; json?: boolean }): Promise<number> {
  const key = await createKey({ force: flags.force === true });
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ privateKeyPath: key.path, keyFingerprint: key.fingerprint, publicKeyPem: key.publicKeyPem })}\n`,
    );
  } else {
    process.stdout.write(
      `created an Ed25519 signing key\n  private key: ${key.path} (mode 0600; keep it, never share it)\n  fingerprint: ${key.fingerprint}\n`,
    );
  }
  return 0;
}
