import { CliError, EXIT_USAGE } from '../errors.js';
import { createKey, loadKey, type SigningKey } from '../signing-key.js';
import { serverUrl } from '../submit.js';
import type { RunRequest } from './request.js';

/**
 * Every result is signed; the key is needed only at the end, but a missing or unsafe one should
 * stop the run before it starts, and so should --submit with nowhere to submit to.
 */
export async function prepareSigning(
  flags: Pick<RunRequest, 'submit' | 'server'>,
  log: (s: string) => void,
): Promise<{ key: SigningKey; submitTo: string | null }> {
  let key = await loadKey();
  if (!key) {
    key = await createKey();
    log(
      `created a signing key at ${key.path} (${key.fingerprint}); it signs every result you keep or submit`,
    );
  }
  const submitTo = flags.submit ? await serverUrl(flags.server) : null;
  if (flags.submit && !submitTo) {
    throw new CliError(
      '--submit needs a server: pass --server URL, set REDIS_BENCHDB_SERVER, or put {"server": "URL"} in the config.json beside your signing key',
      'ERR_USAGE',
      EXIT_USAGE,
    );
  }
  return { key, submitTo };
}
