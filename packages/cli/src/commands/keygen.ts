import { defineCommand } from '../command/define.js';
import { type FlagsOf, flag } from '../command/option.js';
import { json } from '../options/common.js';
import { createKey } from '../signing-key.js';

const KEYGEN_OPTIONS = {
  force: flag('--force', 'replace an existing key'),
  json: json('print the key path and public fingerprint as JSON'),
};

export default defineCommand({
  name: 'keygen',
  description:
    'create the Ed25519 key that signs your results (stored with mode 0600 in your config directory)',
  options: KEYGEN_OPTIONS,
  run: (flags) => keygenCommand(flags),
});

/** `redis-benchdb keygen`: make the Ed25519 key that signs results. Prints where, and the public fingerprint. */
export async function keygenCommand(flags: FlagsOf<typeof KEYGEN_OPTIONS>): Promise<number> {
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
