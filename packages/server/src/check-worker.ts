// A worker thread of CheckPool: every check of a submission, away from the service's event loop.
import {
  type CheckedSubmission,
  checkParsedSubmission,
  checkSubmission,
  IngestError,
  parseSubmission,
} from '@redis-benchdb/db/checks';

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

export default function check({ body, receivedAtMs }: CheckTask): CheckReply {
  const started = performance.now();
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const done = (reply: Omit<CheckReply, 'ms'>): CheckReply => ({ ...reply, ms: performance.now() - started });
  let key: string | undefined;
  try {
    // Read once, with the one depth limit (MAX_JSON_DEPTH) checked in the text before it is parsed:
    // JSON.parse of 100,000 levels costs half a second. The key is peeked from what was parsed.
    const doc = parseSubmission(bytes);
    key = peekKeyFingerprint(doc);
    return done({ key, submission: checkParsedSubmission(doc, { now: new Date(receivedAtMs) }) });
  } catch (e) {
    if (!(e instanceof IngestError)) throw e;
    return done({ key, refusal: { code: e.code, status: e.status, message: e.message } });
  }
}

const FINGERPRINT = /^sha256:[0-9a-f]{64}$/;

/**
 * The envelope's `keyFingerprint`, read without verifying anything: only to pick a rate-limit bucket
 * (key-budget.ts). Undefined for anything that is not an object carrying one: the checks then say
 * what is wrong.
 */
export function peekKeyFingerprint(doc: unknown): string | undefined {
  const fingerprint = (doc as { keyFingerprint?: unknown } | null)?.keyFingerprint;
  return typeof fingerprint === 'string' && FINGERPRINT.test(fingerprint) ? fingerprint : undefined;
}
