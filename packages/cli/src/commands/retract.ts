import { defineCommand } from '@redis-benchdb/command';
import { signRetraction } from '@redis-benchdb/db';
import { serverUrl } from '../config.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { ingestServer } from '../options/common.js';
import { postJson, refusal } from '../post-json.js';
import { loadKey } from '../signing-key.js';

export default defineCommand({
  name: 'retract',
  description: 'unlist one of your own results on the ingest service (signed with your key)',
  argument: { usage: '<id>', help: 'the result id run or submit printed' },
  options: { server: ingestServer() },
  run: (flags, id) => retractCommand(id, flags),
});

/**
 * `redis-benchdb retract ID`: unlist one of your own results on the ingest service. The request is
 * signed with your key; the service refuses it for a result another key signed.
 */
export async function retractCommand(id: string, flags: { server?: string }): Promise<number> {
  if (!/^[0-9a-f]{64}$/.test(id))
    throw new CliError(
      `invalid result id "${id}": expected the 64 hex digits run or submit printed`,
      'ERR_USAGE',
      EXIT_USAGE,
    );
  const url = await serverUrl(flags.server);
  if (!url)
    throw new CliError(
      'retract needs a server: pass --server URL or set REDIS_BENCHDB_SERVER',
      'ERR_USAGE',
      EXIT_USAGE,
    );
  const key = await loadKey();
  if (!key)
    throw new CliError('no signing key here: only the key that signed a result can retract it', 'ERR_NO_KEY');
  const reply = await postJson(
    url,
    `/api/v1/results/${id}/retract`,
    signRetraction(id, key.privateKeyPem, new Date(), { origin: url }),
  );
  const body = reply.body as { retractedAt?: string; alreadyRetracted?: boolean };
  if (reply.ok) {
    process.stdout.write(
      `${id}: ${body.alreadyRetracted ? 'was already retracted' : 'retracted'} (${body.retractedAt})\n`,
    );
    return 0;
  }
  process.stdout.write(`${id}: ${refusal(reply)}\n`);
  return 1;
}
