/**
 * A refusal the HTTP layer makes itself (not found, rate limited, ...). The database's IngestError and
 * RetractError carry their own code and status; all three reach the client in the same JSON shape.
 */
export class HttpError extends Error {
  override name = 'HttpError';

  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    /** Sent as `retry-after` (seconds) with a 429 or a 503. */
    readonly retryAfterSec?: number,
  ) {
    super(message);
  }
}
