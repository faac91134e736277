/** Why a key statement (a rotation or a revocation) was refused; `status` is the HTTP status the server answers with. */
export type KeyStatementErrorCode =
  | 'MALFORMED_REQUEST'
  | 'BAD_SIGNATURE'
  /** The key was revoked: it names no successor, and signs nothing more here. */
  | 'KEY_REVOKED'
  /** The key already named another successor: a key is rotated once. */
  | 'ALREADY_ROTATED'
  /** The successor named is already a predecessor of the key. */
  | 'ROTATION_CYCLE'
  /** A revocation signed by a key that is neither the revoked key nor one of its successors. */
  | 'NOT_YOUR_KEY';

export class KeyStatementError extends Error {
  override name = 'KeyStatementError';

  constructor(
    readonly code: KeyStatementErrorCode,
    readonly status: 400 | 403 | 409 | 422,
    message: string,
  ) {
    super(message);
  }
}
