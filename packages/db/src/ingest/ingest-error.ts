/**
 * Why a submission was refused. `status` is the HTTP status the server answers with; the CLI maps
 * `code` to its own exit codes. 413 (too large) is the HTTP layer's to raise, before the body is read.
 */
export type IngestErrorCode =
  | 'MALFORMED_JSON'
  /** The same key twice in one object (after unescaping), in the envelope or its payload. */
  | 'DUPLICATE_KEY'
  /** Objects and arrays nested deeper than MAX_JSON_DEPTH. */
  | 'TOO_DEEP'
  | 'UNSUPPORTED_SCHEMA'
  | 'INVALID_ENVELOPE'
  | 'BAD_SIGNATURE'
  | 'INVALID_RESULT'
  /** A histogram that is not HdrHistogram V2, or claims more buckets or bytes than its range holds. */
  | 'INVALID_HISTOGRAM'
  | 'IMPLAUSIBLE'
  /** The result binds another key than the one that signed it: a re-signed copy. */
  | 'KEY_MISMATCH'
  /** The same payload was stored under another key before it binds keys: it is now disputed (disputes.ts). */
  | 'DISPUTED'
  /** The result names a run group whose stored members another key signed (run-group.ts). */
  | 'RUN_GROUP_NOT_YOURS'
  /** The result's runGroup size or index contradicts the group's stored members (run-group.ts). */
  | 'RUN_GROUP_MISMATCH'
  /** A field that names a machine kind or a version is not in identity normal form (result identity-text.ts). */
  | 'IDENTITY_TEXT'
  /** The run ended after the service received it, beyond the clock-skew allowance. */
  | 'FINISHED_IN_FUTURE'
  /** A cell's replies were of the wrong type, or its commandstats fell short (wrong-replies.ts). */
  | 'WRONG_REPLIES'
  /** The signing key was revoked by its owner (keys/key-history.ts): it signs nothing more here. */
  | 'KEY_REVOKED'
  /**
   * No longer raised: since issue 30, another key's copy is stored and disputed (disputes.ts). Kept so
   * that clients that know the code still compile.
   */
  | 'DUPLICATE_MEASUREMENTS';

export class IngestError extends Error {
  override name = 'IngestError';

  constructor(
    readonly code: IngestErrorCode,
    readonly status: 400 | 403 | 409 | 413 | 422,
    message: string,
  ) {
    super(message);
  }
}
