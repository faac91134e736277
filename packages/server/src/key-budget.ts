const WINDOW_MS = 60_000;
/** Past this many keys, forget those whose window has ended. */
const PRUNE_AT = 10_000;

interface Window {
  startedAt: number;
  used: number;
}

/**
 * The per-key limit: submissions signed by one key, per minute (fixed windows).
 *
 * Checked before a submission is stored, with the fingerprint the envelope names; charged after, and
 * only when the signature verified (ingest also checks that the fingerprint is the key's). Fingerprints are public:
 * a limit charged on what an envelope merely claims would let anyone use up another key's minute
 * with junk naming it. Junk is the per-IP limit's business. Between check and charge lies one batch,
 * so a key may go over by the submissions of one batch.
 */
export class KeyBudget {
  readonly #windows = new Map<string, Window>();

  constructor(readonly perMinute: number) {}

  /** Seconds until `key` may submit again; 0 when it may now. */
  retryAfterSec(key: string, now = Date.now()): number {
    const w = this.#windows.get(key);
    if (!w || now - w.startedAt >= WINDOW_MS || w.used < this.perMinute) return 0;
    return Math.max(1, Math.ceil((w.startedAt + WINDOW_MS - now) / 1000));
  }

  charge(key: string, now = Date.now()): void {
    let w = this.#windows.get(key);
    if (!w || now - w.startedAt >= WINDOW_MS) {
      if (!w && this.#windows.size >= PRUNE_AT) this.#prune(now);
      w = { startedAt: now, used: 0 };
      this.#windows.set(key, w);
    }
    w.used++;
  }

  #prune(now: number): void {
    for (const [key, w] of this.#windows) if (now - w.startedAt >= WINDOW_MS) this.#windows.delete(key);
  }
}

const FINGERPRINT = /^sha256:[0-9a-f]{64}$/;

/**
 * The envelope's `keyFingerprint`, read without verifying anything: only to pick a rate-limit bucket.
 * Undefined for anything that is not an object carrying one: ingest then says what is wrong (400 for
 * JSON that does not parse). Runs on a check thread, beside ingest's own parse (check-worker.ts).
 */
export function peekKeyFingerprint(body: Buffer): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const fingerprint = (doc as { keyFingerprint?: unknown } | null)?.keyFingerprint;
  return typeof fingerprint === 'string' && FINGERPRINT.test(fingerprint) ? fingerprint : undefined;
}
