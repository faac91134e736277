/** Why a retraction was refused; `status` is the HTTP status the server answers with. */
export type RetractErrorCode =
  | 'MALFORMED_REQUEST'
  | 'BAD_SIGNATURE'
  | 'STALE_REQUEST'
  /** Past its own expiresAt. */
  | 'EXPIRED_REQUEST'
  /** Signed for another service (its origin): a copy replayed here. */
  | 'WRONG_SERVICE'
  | 'NOT_FOUND'
  | 'NOT_YOUR_RESULT'
  /** The key that signed the request was revoked (keys/key-history.ts). */
  | 'KEY_REVOKED'
  /** Another key sent the very same payload (disputes.ts): retracting it would take it from that key. */
  | 'DISPUTED';

export class RetractError extends Error {
  override name = 'RetractError';

  constructor(
    readonly code: RetractErrorCode,
    readonly status: 400 | 403 | 404 | 409 | 422,
    message: string,
  ) {
    super(message);
  }
}
