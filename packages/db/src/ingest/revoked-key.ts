import type { BenchDb } from '../database/open.js';
import { revocationOf } from '../keys/key-history.js';
import { IngestError } from './ingest-error.js';

/** A key its owner revoked signs nothing more here, not even a result it signed before. */
export function refuseRevokedKey(db: BenchDb, keyFingerprint: string | null): void {
  const revoked = keyFingerprint === null ? undefined : revocationOf(db, keyFingerprint);
  if (revoked)
    throw new IngestError(
      'KEY_REVOKED',
      403,
      `the key ${keyFingerprint} was revoked here on ${revoked.revokedAt}, by ${revoked.revokedBy}: results it signs are refused. Sign with your new key (redis-benchdb keygen)`,
    );
}
