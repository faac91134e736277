/**
 * How much of a reply the runner takes from a server before it stops believing it. A server owes
 * the runner nothing: without bounds, replies nested without end took the runner to 3,494 MiB,
 * a line that never ended to 1,525 MiB, and nested arrays at the handshake crashed the control
 * client (a RangeError from redis-parser). Every bound is far above what any Redis command this
 * runner sends can return, and each violation ends the connection with ReplyLimitError.
 */
export interface ReplyLimits {
  /** Aggregates (arrays, maps, sets, pushes, attributes) open inside one another. */
  maxDepth: number;
  /** Bytes of one header line: a simple string, an error, an integer, a length. */
  maxLineBytes: number;
  /** The length a bulk string may declare. */
  maxBulkBytes: number;
  /**
   * Bytes a reply may span before it is complete: what a client that builds values (ioredis's
   * redis-parser) must buffer. The measured connections skip payloads and keep no reply, so
   * theirs is unbounded (Infinity): only the header line in progress is held (maxLineBytes).
   */
  maxReplyBytes: number;
  /** Values one reply may hold, nested ones included: each costs a client that builds them an object. */
  maxReplyValues: number;
}

/**
 * The measured connections (the engine's own reader). 64 levels: Redis's deepest replies (COMMAND
 * DOCS, XINFO STREAM FULL) nest under ten. 64 KiB: Redis's own bound on an inline request line
 * (PROTO_INLINE_MAX_SIZE). 512 MiB: Redis's own bound on a bulk string (proto-max-bulk-len).
 */
export const MEASURED_REPLY_LIMITS: ReplyLimits = {
  maxDepth: 64,
  maxLineBytes: 64 * 1024,
  maxBulkBytes: 512 * 1024 * 1024,
  maxReplyBytes: Number.POSITIVE_INFINITY,
  maxReplyValues: Number.POSITIVE_INFINITY,
};

/**
 * The control connection (ioredis), which builds every reply as JS values. 16 MiB: INFO
 * everything, CONFIG GET * and a SCAN batch are tens of KiB; CLUSTER SHARDS of a thousand
 * nodes is about 1 MiB. 262,144 values: a SCAN batch of 5,000 keys is 5,002.
 */
export const CONTROL_REPLY_LIMITS: ReplyLimits = {
  maxDepth: 64,
  maxLineBytes: 64 * 1024,
  maxBulkBytes: 16 * 1024 * 1024,
  maxReplyBytes: 16 * 1024 * 1024,
  maxReplyValues: 262_144,
};

/** A reply broke one of the limits; the message says which and is completed with the server's name. */
export class ReplyLimitError extends Error {
  readonly code = 'ERR_REPLY_LIMIT';
}

/** "the server at X sent ...": what the runner refused, and that it is the server's fault, not the user's. */
export function serverBrokeLimit(server: string, what: string): ReplyLimitError {
  return new ReplyLimitError(
    `the server at ${server} sent ${what}; no Redis-compatible server sends that to the commands this runner uses, so the run stopped reading it (the runner's reply limits are in docs/RESULT-FORMAT.md, "Reply limits")`,
  );
}

export const fmt = (n: number): string => n.toLocaleString('en-US');
