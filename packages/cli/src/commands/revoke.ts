import { readFile } from 'node:fs/promises';
import { defineCommand, type FlagsOf, flag, text } from '@redis-benchdb/command';
import { signKeyRevocation } from '@redis-benchdb/db';
import { noServerHelp, serverUrl } from '../config.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { ingestServer } from '../options/common.js';
import { postJson, refusal } from '../post-json.js';
import { loadKey } from '../signing-key.js';

const REVOKE_OPTIONS = {
  key: text(
    '--key <file>',
    'the private key that signs the revocation, e.g. a backup keygen kept (default: your key)',
  ),
  server: ingestServer(),
  yes: flag('--yes', 'go ahead: every result of the key is retracted there, and it signs nothing more'),
};

export default defineCommand({
  name: 'revoke',
  description:
    'revoke a leaked key on the ingest service: every result it signed is retracted, and the service takes nothing more signed by it',
  argument: {
    usage: '[key]',
    help: 'the fingerprint of the key to revoke (sha256:...): your key by default, or a key your key succeeds (keygen --rotate)',
  },
  options: REVOKE_OPTIONS,
  run: (flags, key) => revokeCommand(key, flags),
});

/**
 * `redis-benchdb revoke [FINGERPRINT]`: a revocation statement, signed by the key itself or by the
 * successor it named, sent to the service. It cannot be undone, hence --yes.
 */
export async function revokeCommand(
  fingerprint: string | undefined,
  flags: FlagsOf<typeof REVOKE_OPTIONS>,
): Promise<number> {
  if (fingerprint !== undefined && !/^sha256:[0-9a-f]{64}$/.test(fingerprint))
    throw new CliError(
      `invalid key fingerprint "${fingerprint}": expected sha256: and 64 hex digits, as keygen prints`,
      'ERR_USAGE',
      EXIT_USAGE,
    );
  const url = await serverUrl(flags.server);
  if (!url) throw new CliError(`revoke needs a service: ${noServerHelp()}`, 'ERR_USAGE', EXIT_USAGE);
  const privateKeyPem =
    flags.key !== undefined ? await readKeyFile(flags.key) : (await loadKey())?.privateKeyPem;
  if (!privateKeyPem)
    throw new CliError('no signing key here: give the key to revoke with --key FILE', 'ERR_NO_KEY');
  let statement: ReturnType<typeof signKeyRevocation>;
  try {
    statement = signKeyRevocation(privateKeyPem, fingerprint);
  } catch (err) {
    throw new CliError(
      `not an Ed25519 private key (PEM): ${(err as Error).message}`,
      'ERR_USAGE',
      EXIT_USAGE,
    );
  }
  const revoked = statement.revokedKeyFingerprint;
  if (!flags.yes)
    throw new CliError(
      `revoking ${revoked} on ${url} retracts every result it signed there, and the service takes nothing more signed by it; this cannot be undone. Add --yes to go ahead`,
      'ERR_USAGE',
      EXIT_USAGE,
    );
  const reply = await postJson(url, '/api/v1/keys/revocations', statement);
  if (!reply.ok) {
    process.stdout.write(`${revoked}: ${refusal(reply)}\n`);
    return 1;
  }
  const body = reply.body as { retracted?: string[]; keptDisputed?: string[]; alreadyRevoked?: boolean };
  const lines = [
    `${revoked}: ${body.alreadyRevoked ? 'was already revoked' : 'revoked'} on ${url}; ${body.retracted?.length ?? 0} results retracted`,
    ...(body.retracted ?? []).map((id) => `  retracted ${id}`),
    ...(body.keptDisputed ?? []).map((id) => `  kept ${id}: disputed, another key sent the same payload`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

async function readKeyFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read --key ${path}: ${(err as Error).message}`, 'ERR_USAGE', EXIT_USAGE);
  }
}
