import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { canonicalJson, keyFingerprint, publicKeyFromPrivate, rawPublicKey } from '@redis-benchdb/result';

/**
 * A signed request to unlist a result, `redis-benchdb/retract.v2`. The signature is Ed25519 over the
 * UTF-8 bytes of the canonical JSON of `{ schema, resultId, origin, requestedAt, expiresAt }`: the key
 * that signed the result proves it is its owner asking; `origin` names the one service it is meant for,
 * so that a copy sent to another service is refused there; `expiresAt` bounds how long a captured
 * request stays usable.
 *
 * It lives here while the server is the only verifier; when the CLI signs these, it belongs in
 * packages/result beside signResult.
 */
export const RETRACT_SCHEMA_ID = 'redis-benchdb/retract.v2';

/**
 * The origin of a request signed for no service (a local database, a test): every service refuses it,
 * since none has this origin.
 */
export const LOCAL_ORIGIN = 'local:';

/** The longest a request may stay valid, and its default life. */
export const RETRACT_MAX_LIFE_MS = 24 * 3600 * 1000;
export const RETRACT_DEFAULT_LIFE_MS = 3600 * 1000;

export interface RetractRequest {
  schema: typeof RETRACT_SCHEMA_ID;
  /** The content id of the result to unlist. */
  resultId: string;
  /** The service it is meant for: the origin (`https://host[:port]`) of the URL it is sent to. */
  origin: string;
  /** RFC 3339 date-time, when the owner signed the request. */
  requestedAt: string;
  /** RFC 3339 date-time after which no service accepts it; at most a day after requestedAt. */
  expiresAt: string;
  /** Base64 of the raw 32-byte Ed25519 public key (as in an envelope). */
  publicKey: string;
  /** Base64 of the 64-byte Ed25519 signature. */
  signature: string;
}

/** Which service a request is for, and until when. */
export interface RetractTarget {
  /** A URL or origin of the service. @default LOCAL_ORIGIN (no service accepts it) */
  origin?: string;
  /** @default requestedAt + RETRACT_DEFAULT_LIFE_MS */
  expiresAt?: Date;
}

export type RetractionCheck =
  | { ok: true; request: RetractRequest; keyFingerprint: string }
  | { ok: false; code: 'MALFORMED_REQUEST' | 'BAD_SIGNATURE'; reason: string };

const KEYS = ['expiresAt', 'origin', 'publicKey', 'requestedAt', 'resultId', 'schema', 'signature'];
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The origin of a service's URL as a request names it (`new URL(url).origin`: scheme, host, port). */
export function serviceOrigin(url: string): string {
  if (url === LOCAL_ORIGIN) return url;
  try {
    const origin = new URL(url).origin;
    if (origin !== 'null') return origin;
  } catch {}
  throw new RangeError(`invalid service URL: ${url} (e.g. https://benchdb.example.org)`);
}

/** The bytes that are signed. */
export function retractionMessage(
  req: Pick<RetractRequest, 'resultId' | 'origin' | 'requestedAt' | 'expiresAt'>,
): Buffer {
  const { resultId, origin, requestedAt, expiresAt } = req;
  const body = { schema: RETRACT_SCHEMA_ID, resultId, origin, requestedAt, expiresAt };
  return Buffer.from(canonicalJson(body), 'utf8');
}

/** Sign a retraction of `resultId`, for the service `target.origin`, with the key that signed the result (PKCS#8 PEM). */
export function signRetraction(
  resultId: string,
  privateKeyPem: string,
  requestedAt = new Date(),
  target: RetractTarget = {},
): RetractRequest {
  const expiresAt = target.expiresAt ?? new Date(requestedAt.getTime() + RETRACT_DEFAULT_LIFE_MS);
  const unsigned = {
    resultId,
    origin: serviceOrigin(target.origin ?? LOCAL_ORIGIN),
    requestedAt: requestedAt.toISOString(),
    expiresAt: expiresAt.toISOString(),
  };
  const signature = sign(null, retractionMessage(unsigned), createPrivateKey(privateKeyPem));
  return {
    schema: RETRACT_SCHEMA_ID,
    ...unsigned,
    publicKey: rawPublicKey(publicKeyFromPrivate(privateKeyPem)).toString('base64'),
    signature: signature.toString('base64'),
  };
}

/** Check a request's shape and signature; whose result it names, where and when, is the caller's question. */
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
  if (!verifiedBy(publicKey, retractionMessage(r), signature))
    return { ok: false, code: 'BAD_SIGNATURE', reason: 'the signature does not match the request' };
  return { ok: true, request: r, keyFingerprint: keyFingerprint(publicKey) };
}

/** Whether the raw 32-byte Ed25519 `publicKey` signed `message`. */
export function verifiedBy(publicKey: Buffer, message: Buffer, signature: Buffer): boolean {
  try {
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') },
      format: 'jwk',
    });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

function checkShape(req: unknown): string | undefined {
  if (req === null || typeof req !== 'object' || Array.isArray(req))
    return 'the request must be a JSON object';
  const r = req as Record<string, unknown>;
  if (r.schema === 'redis-benchdb/retract.v1')
    return `schema redis-benchdb/retract.v1 names no service and no expiry, so any service would take a copy of it: update redis-benchdb and retract again (it signs ${RETRACT_SCHEMA_ID})`;
  const keys = Object.keys(req).sort();
  if (keys.join() !== KEYS.join()) return `the request must have exactly the fields ${KEYS.join(', ')}`;
  if (r.schema !== RETRACT_SCHEMA_ID) return `schema must be "${RETRACT_SCHEMA_ID}"`;
  for (const k of KEYS) if (typeof r[k] !== 'string' || r[k] === '') return `${k} must be a non-empty string`;
  for (const k of ['requestedAt', 'expiresAt'])
    if (!DATE_TIME.test(r[k] as string) || Number.isNaN(Date.parse(r[k] as string)))
      return `${k} must be an RFC 3339 date-time`;
  const life = Date.parse(r.expiresAt as string) - Date.parse(r.requestedAt as string);
  if (life <= 0 || life > RETRACT_MAX_LIFE_MS) return 'expiresAt must be after requestedAt, by at most a day';
  return undefined;
}

/** The round trip rejects base64 with stray low bits, which would let a changed character pass. */
export function strictBase64(text: string, bytes: number): Buffer | undefined {
  const buf = Buffer.from(text, 'base64');
  return buf.length === bytes && buf.toString('base64') === text ? buf : undefined;
}
