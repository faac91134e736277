import type { RunRequest } from '@redis-benchdb/runner';
import { serverUrl } from '../config.js';
import { createKey, loadKey, type SigningKey } from '../signing-key.js';

/** Where --submit sends the result: null without --submit; `to` null when no service is known. */
export type SubmitTarget = { to: string | null } | null;

/**
 * Every result is signed; the key is needed only at the end, but a missing or unsafe one should
 * stop the run before it starts. --submit with no service known does not: the signed result then
 * waits in the spool (run/keep.ts says so, and how to send it).
 */
export async function prepareSigning(
  flags: Pick<RunRequest, 'submit' | 'server'>,
  log: (s: string) => void,
): Promise<{ key: SigningKey; submit: SubmitTarget }> {
  // The service first: an address refused (one with credentials in it) stops the run before a key is made.
  const to = flags.submit || flags.server ? await serverUrl(flags.server) : null;
  const submit = flags.submit ? { to } : null;
  let key = await loadKey();
  if (!key) {
    key = await createKey();
    log(
      `created a signing key at ${key.path} (${key.fingerprint}); it signs every result you keep or submit`,
    );
  }
  return { key, submit };
}
