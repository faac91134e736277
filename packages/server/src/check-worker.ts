// A worker thread of CheckPool: every check of a submission, away from the service's event loop.
import { type CheckedSubmission, checkSubmission, IngestError } from '@redis-benchdb/db/checks';
import { nestsDeeperThan } from './json-depth.js';
import { peekKeyFingerprint } from './key-budget.js';

export interface CheckTask {
  /** The body as received (a Buffer arrives as a Uint8Array). */
  body: Uint8Array;
  /** Receipt time, ms since the epoch: `received_at`, and "now" for the timestamp checks. */
  receivedAtMs: number;
}

/** What crosses back to the event loop: plain data, since an Error loses its code on the way. */
export interface CheckReply {
  /** The keyFingerprint the envelope names, unverified: the rate-limit bucket. */
  key: string | undefined;
  /** Exactly one of these two. */
  submission?: CheckedSubmission;
  refusal?: Pick<IngestError, 'code' | 'status' | 'message'>;
  /** CPU-bound time this check took on its thread. */
  ms: number;
}

// Compile the schemas now, before the pool hands this thread its first body (a second or so of CPU
// on a busy 2-vCPU machine), rather than in that body's request.
try {
  checkSubmission('{"schema":"redis-benchdb/envelope.v1"}');
} catch {}

/** Deeper than any envelope (one level: the result is a string inside it), shallow enough to scan. */
export const MAX_DEPTH = 64;

export default function check({ body, receivedAtMs }: CheckTask): CheckReply {
  const started = performance.now();
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const done = (reply: Omit<CheckReply, 'ms'>): CheckReply => ({ ...reply, ms: performance.now() - started });
  // Before the key is read: JSON.parse of 100,000 levels costs half a second.
  if (nestsDeeperThan(bytes, MAX_DEPTH))
    return done({
      key: undefined,
      refusal: {
        code: 'TOO_DEEP',
        status: 400,
        message: `the body nests arrays or objects more than ${MAX_DEPTH} deep; an envelope nests one: send the envelope run --out wrote`,
      },
    });
  const key = peekKeyFingerprint(bytes);
  try {
    return done({ key, submission: checkSubmission(bytes, { now: new Date(receivedAtMs) }) });
  } catch (e) {
    if (!(e instanceof IngestError)) throw e;
    return done({ key, refusal: { code: e.code, status: e.status, message: e.message } });
  }
}
