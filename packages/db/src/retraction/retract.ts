import { canonicalJson } from '@redis-benchdb/result';
import type { BenchDb } from '../database/open.js';
import { disputesOf } from '../ingest/disputes.js';
import { revocationOf, successorsOf } from '../keys/key-history.js';
import { RetractError } from './retract-error.js';
import { type RetractRequest, verifyRetraction } from './retract-request.js';

export interface RetractOptions {
  /** The server's clock, for the replay window and the expiry. @default new Date() */
  now?: Date;
  /**
   * The origins this service answers at (serviceOrigin): a request naming another is refused with
   * WRONG_SERVICE. Undefined for a local database with no service (scripts, tests): any origin.
   */
  origins?: readonly string[];
}

export interface RetractOutcome {
  id: string;
  /** When the result was unlisted: now, or the first retraction's time. */
  retractedAt: string;
  /** It was already retracted; nothing changed. */
  alreadyRetracted: boolean;
}

/**
 * A request is honoured within a day either side of its `requestedAt`: room for a wrong clock, yet a
 * request found in a log months later is refused; and not after its own `expiresAt`. (Replaying one
 * inside the window only retracts again what is retracted, which changes nothing.)
 */
export const RETRACT_WINDOW_MS = 24 * 3600 * 1000;

/**
 * Unlist a signed result at its owner's signed request. The row stays, with the request kept as
 * proof of who asked; listings and queries leave it out. Idempotent. Throws RetractError.
 */
export function retract(db: BenchDb, request: unknown, opts: RetractOptions = {}): RetractOutcome {
  const check = verifyRetraction(request);
  if (!check.ok)
    throw new RetractError(
      check.code,
      check.code === 'MALFORMED_REQUEST' ? 400 : 422,
      `invalid retraction: ${check.reason}`,
    );
  const { request: req, keyFingerprint } = check;
  const now = opts.now ?? new Date();
  checkTimeAndPlace(req, now, opts.origins);

  const st = db.statements;
  return db.sqlite
    .transaction((): RetractOutcome => {
      const row = st.resultKey.get(req.resultId);
      if (!row) throw new RetractError('NOT_FOUND', 404, `no result ${req.resultId}`);
      const revoked = revocationOf(db, keyFingerprint);
      if (revoked)
        throw new RetractError(
          'KEY_REVOKED',
          403,
          `the key ${keyFingerprint} was revoked here on ${revoked.revokedAt}: it retracts nothing more`,
        );
      // Imported results have no key: nobody can prove they own one. A successor the signer named
      // (keygen --rotate) speaks for it.
      if (row.kind !== 'signed' || !ownedBy(db, row.key_fingerprint, keyFingerprint))
        throw new RetractError(
          'NOT_YOUR_RESULT',
          403,
          `result ${req.resultId} was not signed by the key ${keyFingerprint}, nor by a key it succeeds: only its signer, or the successor the signer named, can retract it`,
        );
      // Two keys claim this very row (a payload that binds no key): neither may unlist the other's claim.
      const claim = disputesOf(db, row.id).find((d) => d.otherResultId === row.id);
      if (claim)
        throw new RetractError(
          'DISPUTED',
          409,
          `result ${row.id} is disputed: the key ${claim.keyFingerprint} sent the same signed payload on ${claim.recordedAt}, so retracting it would take it from that key too. It is kept out of every rank; the operator can settle it (docs/DEPLOY.md, "Who owns a result")`,
        );
      if (row.retracted_at !== null)
        return { id: row.id, retractedAt: row.retracted_at, alreadyRetracted: true };
      const retractedAt = now.toISOString();
      st.retract.run({ id: row.id, retractedAt, retraction: canonicalJson(req) });
      return { id: row.id, retractedAt, alreadyRetracted: false };
    })
    .immediate();
}

/** Refuse a request signed for another service, too far from the server's clock, or expired. */
function checkTimeAndPlace(req: RetractRequest, now: Date, origins: readonly string[] | undefined): void {
  if (origins !== undefined && !origins.includes(req.origin))
    throw new RetractError(
      'WRONG_SERVICE',
      422,
      `this retraction is meant for the service at ${req.origin}, not this one (${origins.join(', ')}): sign one for this service's address (redis-benchdb retract ID --server URL)`,
    );
  if (Math.abs(Date.parse(req.requestedAt) - now.getTime()) > RETRACT_WINDOW_MS)
    throw new RetractError(
      'STALE_REQUEST',
      422,
      `stale retraction: requestedAt ${req.requestedAt} is more than a day from the server's time ${now.toISOString()}; sign a new request`,
    );
  if (Date.parse(req.expiresAt) < now.getTime())
    throw new RetractError(
      'EXPIRED_REQUEST',
      422,
      `expired retraction: it was valid until ${req.expiresAt}, and the server's time is ${now.toISOString()}; sign a new request (check your clock if you just did)`,
    );
}

function ownedBy(db: BenchDb, signer: string | null, asking: string): boolean {
  return signer !== null && (signer === asking || successorsOf(db, signer).includes(asking));
}
