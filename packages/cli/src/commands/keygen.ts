import { defineCommand, type FlagsOf, flag } from '@redis-benchdb/command';
import { noServerHelp, serverUrl } from '../config.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { backupKey, rotateKey } from '../key-rotation.js';
import { ingestServer, json } from '../options/common.js';
import { createKey } from '../signing-key.js';

const KEYGEN_OPTIONS = {
  force: flag('--force', 'replace an existing key; the old one is kept as a dated backup beside it'),
  rotate: flag(
    '--rotate',
    "replace the key with a new one that the service (--server) records as its successor: the new key may then retract the old key's results",
  ),
  server: ingestServer(' that --rotate tells'),
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
  if (flags.rotate) return rotate(flags);
  if (flags.server !== undefined)
    throw new CliError('--server is for keygen --rotate, which tells the service', 'ERR_USAGE', EXIT_USAGE);
  const backup = flags.force ? await backupKey() : null;
  const key = await createKey({ force: flags.force === true });
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ privateKeyPath: key.path, keyFingerprint: key.fingerprint, publicKeyPem: key.publicKeyPem, ...(backup ? { previousKeyPath: backup } : {}) })}\n`,
    );
    return 0;
  }
  process.stdout.write(
    `created an Ed25519 signing key\n  private key: ${key.path} (mode 0600; keep it, never share it)\n  fingerprint: ${key.fingerprint}\n`,
  );
  if (backup)
    process.stdout.write(
      `  the previous key is kept in ${backup} (mode 0600): only it can retract the results it signed\n`,
    );
  return 0;
}

async function rotate(flags: FlagsOf<typeof KEYGEN_OPTIONS>): Promise<number> {
  if (flags.force) throw new CliError('give --rotate or --force, not both', 'ERR_USAGE', EXIT_USAGE);
  const url = await serverUrl(flags.server);
  if (!url)
    throw new CliError(
      `keygen --rotate tells a service which key succeeds yours: ${noServerHelp()}`,
      'ERR_USAGE',
      EXIT_USAGE,
    );
  const r = await rotateKey(url);
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ privateKeyPath: r.key.path, keyFingerprint: r.key.fingerprint, publicKeyPem: r.key.publicKeyPem, previousKeyPath: r.backup, previousKeyFingerprint: r.old.fingerprint, rotationPath: r.statementPath })}\n`,
    );
    return 0;
  }
  process.stdout.write(
    `rotated the signing key: ${url} ${r.alreadyRecorded ? 'had already recorded' : 'recorded'} the new key as the successor of the old one\n  new key: ${r.key.path} (${r.key.fingerprint})\n  old key: ${r.backup} (${r.old.fingerprint}; mode 0600, kept)\n  the new key may retract the old key's results there: retract ID --server ${url}\n  the signed statement: ${r.statementPath}; another service takes it as POST /api/v1/keys/rotations\n`,
  );
  return 0;
}
