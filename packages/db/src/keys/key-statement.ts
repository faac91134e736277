import { createPrivateKey, sign } from 'node:crypto';
import { canonicalJson, keyFingerprint, publicKeyFromPrivate, rawPublicKey } from '@redis-benchdb/result';
import { strictBase64, verifiedBy } from '../retraction/retract-request.js';

/**
 * What a key's owner says about the key, signed: a rotation (`redis-benchdb/key-rotation.v1`, signed by
 * the old key, naming its successor) or a revocation (`redis-benchdb/key-revocation.v1`, signed by the
 * key revoked or by a successor). The signature is Ed25519 over the canonical JSON of every field but
 * `signature`. Neither names a service or expires, unlike a retraction: each is a fact about the key,
 * meant for every service that holds its results, and sending one again changes nothing.
 */
export const ROTATION_SCHEMA_ID = 'redis-benchdb/key-rotation.v1';
export const REVOCATION_SCHEMA_ID = 'redis-benchdb/key-revocation.v1';

interface Signed {
  /** Base64 of the raw 32-byte Ed25519 public key that signed the statement. */
  publicKey: string;
  /** Base64 of the 64-byte Ed25519 signature. */
  signature: string;
}

export interface KeyRotation extends Signed {
  schema: typeof ROTATION_SCHEMA_ID;
  /** Base64 of the raw public key that succeeds the signer's. */
  successorPublicKey: string;
  /** RFC 3339 date-time, when the owner signed it. */
  rotatedAt: string;
}

export interface KeyRevocation extends Signed {
  schema: typeof REVOCATION_SCHEMA_ID;
  /** The key revoked (`sha256:<hex>`, as keyFingerprint gives): the signer's own, or a predecessor's. */
  revokedKeyFingerprint: string;
  /** RFC 3339 date-time, when it was signed. */
  revokedAt: string;
}

export type KeyStatementCheck<T> =
  | { ok: true; statement: T; keyFingerprint: string }
  | { ok: false; code: 'MALFORMED_REQUEST' | 'BAD_SIGNATURE'; reason: string };

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const FINGERPRINT = /^sha256:[0-9a-f]{64}$/;

function signStatement<T extends object>(fields: T, privateKeyPem: string): T & Signed {
  const publicKey = rawPublicKey(publicKeyFromPrivate(privateKeyPem)).toString('base64');
  const unsigned = { ...fields, publicKey };
  const signature = sign(null, Buffer.from(canonicalJson(unsigned), 'utf8'), createPrivateKey(privateKeyPem));
  return { ...unsigned, signature: signature.toString('base64') };
}

/** The old key (PKCS#8 PEM) names its successor (a public key PEM). */
export function signKeyRotation(
  oldPrivateKeyPem: string,
  successorPublicKeyPem: string,
  at = new Date(),
): KeyRotation {
  return signStatement(
    {
      schema: ROTATION_SCHEMA_ID,
      successorPublicKey: rawPublicKey(successorPublicKeyPem).toString('base64'),
      rotatedAt: at.toISOString(),
    } as const,
    oldPrivateKeyPem,
  );
}

/** Revoke `revokedKeyFingerprint` (default: the signer's own key), signed by `privateKeyPem`. */
export function signKeyRevocation(
  privateKeyPem: string,
  revokedKeyFingerprint?: string,
  at = new Date(),
): KeyRevocation {
  return signStatement(
    {
      schema: REVOCATION_SCHEMA_ID,
      revokedKeyFingerprint: revokedKeyFingerprint ?? keyFingerprint(publicKeyFromPrivate(privateKeyPem)),
      revokedAt: at.toISOString(),
    } as const,
    privateKeyPem,
  );
}

export function verifyKeyRotation(req: unknown): KeyStatementCheck<KeyRotation> {
  return verifyStatement<KeyRotation>(req, ROTATION_SCHEMA_ID, {
    successorPublicKey: 'key',
    rotatedAt: 'date',
  });
}

export function verifyKeyRevocation(req: unknown): KeyStatementCheck<KeyRevocation> {
  return verifyStatement<KeyRevocation>(req, REVOCATION_SCHEMA_ID, {
    revokedKeyFingerprint: 'fingerprint',
    revokedAt: 'date',
  });
}

type FieldKind = 'key' | 'date' | 'fingerprint';

function verifyStatement<T extends Signed>(
  req: unknown,
  schema: string,
  fields: Record<string, FieldKind>,
): KeyStatementCheck<T> {
  const shape = checkShape(req, schema, { ...fields, publicKey: 'key' });
  if (shape) return { ok: false, code: 'MALFORMED_REQUEST', reason: shape };
  const { signature, ...unsigned } = req as T;
  const signatureBytes = strictBase64(signature, 64);
  if (!signatureBytes)
    return { ok: false, code: 'MALFORMED_REQUEST', reason: 'signature is not the base64 of 64 bytes' };
  const publicKey = strictBase64(unsigned.publicKey, 32)!;
  if (!verifiedBy(publicKey, Buffer.from(canonicalJson(unsigned), 'utf8'), signatureBytes))
    return { ok: false, code: 'BAD_SIGNATURE', reason: 'the signature does not match the statement' };
  return { ok: true, statement: req as T, keyFingerprint: keyFingerprint(publicKey) };
}

function checkShape(req: unknown, schema: string, fields: Record<string, FieldKind>): string | undefined {
  if (req === null || typeof req !== 'object' || Array.isArray(req))
    return 'the statement must be a JSON object';
  const keys = ['schema', 'signature', ...Object.keys(fields)].sort();
  if (Object.keys(req).sort().join() !== keys.join())
    return `the statement must have exactly the fields ${keys.join(', ')}`;
  const r = req as Record<string, unknown>;
  if (r.schema !== schema) return `schema must be "${schema}"`;
  for (const k of keys) if (typeof r[k] !== 'string' || r[k] === '') return `${k} must be a non-empty string`;
  for (const [k, kind] of Object.entries(fields)) {
    const v = r[k] as string;
    if (kind === 'key' && !strictBase64(v, 32))
      return `${k} is not the base64 of a 32-byte Ed25519 public key`;
    if (kind === 'date' && (!DATE_TIME.test(v) || Number.isNaN(Date.parse(v))))
      return `${k} must be an RFC 3339 date-time`;
    if (kind === 'fingerprint' && !FINGERPRINT.test(v))
      return `${k} must be a key fingerprint, sha256:<64 hex digits>`;
  }
  return undefined;
}
