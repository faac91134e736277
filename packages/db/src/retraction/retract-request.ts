import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { canonicalJson, keyFingerprint, publicKeyFromPrivate, rawPublicKey } from '@redis-benchdb/result';

/**
 * A signed request to unlist a result, `redis-benchdb/retract.v1`. The signature is Ed25519 over the
 * UTF-8 bytes of the canonical JSON of `{ schema, resultId, requestedAt }`: the key that signed the
 * result proves it is its owner asking, and `requestedAt` bounds how long a captured request stays
 * usable.
 *
 * It lives here while the server is the only verifier; when the CLI signs these, it belongs in
 * packages/result beside signResult.
 */
export const RETRACT_SCHEMA_ID = 'redis-benchdb/retract.v1';

export interface RetractRequest {
  schema: typeof RETRACT_SCHEMA_ID;
  /** The content id of the result to unlist. */
  resultId: string;
  /** RFC 3339 date-time, when the owner signed the request. */
  requestedAt: string;
  /** Base64 of the raw 32-byte Ed25519 public key (as in an envelope). */
  publicKey: string;
  /** Base64 of the 64-byte Ed25519 signature. */
  signature: string;
}

export type RetractionCheck =
  | { ok: true; request: RetractRequest; keyFingerprint: string }
  | { ok: false; code: 'MALFORMED_REQUEST' | 'BAD_SIGNATURE'; reason: string };

const KEYS = ['publicKey', 'requestedAt', 'resultId', 'schema', 'signature'];
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The bytes that are signed. */
export function retractionMessage(req: Pick<RetractRequest, 'resultId' | 'requestedAt'>): Buffer {
  const body = { schema: RETRACT_SCHEMA_ID, resultId: req.resultId, requestedAt: req.requestedAt };
  return Buffer.from(canonicalJson(body), 'utf8');
}

/** Sign a retraction of `resultId` with the key that signed the result (PKCS#8 PEM). */
export function signRetraction(
  resultId: string,
  privateKeyPem: string,
  requestedAt = new Date(),
): RetractRequest {
  const unsigned = { resultId, requestedAt: requestedAt.toISOString() };
  const signature = sign(null, retractionMessage(unsigned), createPrivateKey(privateKeyPem));
  return {
    schema: RETRACT_SCHEMA_ID,
    ...unsigned,
    publicKey: rawPublicKey(publicKeyFromPrivate(privateKeyPem)).toString('base64'),
    signature: signature.toString('base64'),
  };
}

/** Check a request's shape and signature; whose result it names is the caller's question. */
export function verifyRetraction(req: unknown): RetractionCheck {
  const shape = checkShape(req);
  if (shape) return { ok: false, code: 'MALFORMED_REQUEST', reason: shape };
  const r = req as RetractRequest;
  const publicKey = strictBase64(r.publicKey, 32);
  const signature = strictBase64(r.signature, 64);
  if (!publicKey)
    return { ok: false, code: 'MALFORMED_REQUEST', reason: 'publicKey is not the base64 of 32 bytes' };
  if (!signature)
    return { ok: false, code: 'MALFORMED_REQUEST', reason: 'signature is not the base64 of 64 bytes' };
  let signed = false;
  try {
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') },
      format: 'jwk',
    });
    signed = verify(null, retractionMessage(r), key, signature);
  } catch {
    signed = false;
  }
  if (!signed)
    return { ok: false, code: 'BAD_SIGNATURE', reason: 'the signature does not match the request' };
  return { ok: true, request: r, keyFingerprint: keyFingerprint(publicKey) };
}

function checkShape(req: unknown): string | undefined {
  if (req === null || typeof req !== 'object' || Array.isArray(req))
    return 'the request must be a JSON object';
  const keys = Object.keys(req).sort();
  if (keys.join() !== KEYS.join()) return `the request must have exactly the fields ${KEYS.join(', ')}`;
  const r = req as Record<string, unknown>;
  if (r.schema !== RETRACT_SCHEMA_ID) return `schema must be "${RETRACT_SCHEMA_ID}"`;
  for (const k of KEYS) if (typeof r[k] !== 'string' || r[k] === '') return `${k} must be a non-empty string`;
  if (!DATE_TIME.test(r.requestedAt as string) || Number.isNaN(Date.parse(r.requestedAt as string)))
    return 'requestedAt must be an RFC 3339 date-time';
  return undefined;
}

/** The round trip rejects base64 with stray low bits, which would let a changed character pass. */
function strictBase64(text: string, bytes: number): Buffer | undefined {
  const buf = Buffer.from(text, 'base64');
  return buf.length === bytes && buf.toString('base64') === text ? buf : undefined;
}
