import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { canonicalJson } from './canonical.js';
import type { EnvelopeV1, ResultV1 } from './generated/result-v1.js';
import { checkIdentityText } from './identity-text.js';
import { describeProblems } from './problem.js';
import { ENVELOPE_SCHEMA_ID, validateResult } from './schema.js';

export interface SigningKey {
  /** PKCS#8 PEM. Keep it private: it never goes into an envelope. */
  privateKeyPem: string;
  /** SPKI PEM. */
  publicKeyPem: string;
}

/** A new Ed25519 key pair. */
export function generateSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519', {
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/** The SPKI PEM public key of an Ed25519 private key. */
export function publicKeyFromPrivate(privateKeyPem: string): string {
  const key = ed25519(createPrivateKey(privateKeyPem), 'private');
  return createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
}

/** The raw 32 bytes of an Ed25519 public key (what an envelope carries, base64). */
export function rawPublicKey(publicKeyPem: string): Buffer {
  const key = ed25519(createPublicKey(publicKeyPem), 'public');
  const { x } = key.export({ format: 'jwk' });
  if (typeof x !== 'string') throw new Error('the public key has no raw form');
  return Buffer.from(x, 'base64url');
}

/** `sha256:` and the hex SHA-256 of the raw 32-byte public key. Takes a PEM or the raw bytes. */
export function keyFingerprint(publicKey: string | Uint8Array): string {
  const raw = typeof publicKey === 'string' ? rawPublicKey(publicKey) : publicKey;
  if (raw.length !== 32) throw new Error(`an Ed25519 public key has 32 bytes, not ${raw.length}`);
  return `sha256:${createHash('sha256').update(raw).digest('hex')}`;
}

/**
 * Sign a result document: its RFC 8785 canonical JSON is the payload, and the signature covers the
 * payload's UTF-8 bytes. The payload binds the signing key (`keyFingerprint`, added here when absent),
 * so that the same measurements re-signed by another key are another payload that says whose it is,
 * never this one (docs/DEPLOY.md, "Who owns a result"). Refuses a document that does not validate as
 * result.v1, or that is bound to another key, since no verifier would accept the envelope.
 */
export function signResult(result: unknown, privateKeyPem: string): EnvelopeV1 {
  const valid = validateResult(result);
  if (!valid.ok) throw new Error(`cannot sign an invalid result: ${describeProblems(valid.errors)}`);
  // Before it is signed, when it can still be changed: no service would take it (identity-text.ts).
  checkIdentityText(result as ResultV1);
  const privateKey = ed25519(createPrivateKey(privateKeyPem), 'private');
  const raw = rawPublicKey(createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString());
  const fingerprint = keyFingerprint(raw);
  const bound = (result as ResultV1).keyFingerprint;
  if (bound !== undefined && bound !== fingerprint)
    throw new Error(`cannot sign a result bound to the key ${bound} with the key ${fingerprint}`);
  const payload = canonicalJson({ ...(result as ResultV1), keyFingerprint: fingerprint });
  return {
    schema: ENVELOPE_SCHEMA_ID,
    payload,
    signature: sign(null, Buffer.from(payload, 'utf8'), privateKey).toString('base64'),
    publicKey: raw.toString('base64'),
    keyFingerprint: fingerprint,
  };
}

/** The bytes `text` is the strict base64 of, when they are `bytes` long; anything else is undefined. */
export function strictBase64(text: string, bytes: number): Buffer | undefined {
  const buf = Buffer.from(text, 'base64');
  return buf.length === bytes && buf.toString('base64') === text ? buf : undefined;
}

function ed25519(key: KeyObject, kind: 'private' | 'public'): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`expected an Ed25519 ${kind} key, got ${key.asymmetricKeyType ?? key.type}`);
  return key;
}

export type SignatureCheck =
  | { ok: true; payload: string; keyFingerprint: string }
  | { ok: false; reason: string };

/**
 * Only the cryptographic part of verifyEnvelope: the key matches its fingerprint and the signature
 * matches the payload bytes. For readers of results that were fully verified when they were stored
 * (the site's build reads 10,000 of them): re-canonicalising and re-validating a 500 KB payload costs
 * ten times more than the signature, and proves nothing new about bytes that have not changed.
 */
export function checkEnvelopeSignature(envelope: {
  payload?: unknown;
  signature?: unknown;
  publicKey?: unknown;
  keyFingerprint?: unknown;
}): SignatureCheck {
  const { payload, signature, publicKey, keyFingerprint: fp } = envelope;
  if (
    typeof payload !== 'string' ||
    typeof signature !== 'string' ||
    typeof publicKey !== 'string' ||
    typeof fp !== 'string'
  )
    return refused('not an envelope: payload, signature, publicKey and keyFingerprint must be strings');
  const key = strictBase64(publicKey, 32);
  const sig = strictBase64(signature, 64);
  if (!key || !sig) return refused('publicKey or signature is not base64 of the right length');
  if (keyFingerprint(key) !== fp) return refused('key fingerprint does not match the public key');
  let ok = false;
  try {
    ok = verify(
      null,
      Buffer.from(payload, 'utf8'),
      createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.toString('base64url') }, format: 'jwk' }),
      sig,
    );
  } catch {
    ok = false;
  }
  return ok
    ? { ok: true, payload, keyFingerprint: fp }
    : refused('signature does not match the payload (the file was changed after signing)');
}

function refused(reason: string): SignatureCheck {
  return { ok: false, reason };
}
