// Real signed envelopes for tests of every package that stores or serves results (db, server).
// It imports the built package, as a client would: run `pnpm -s build` first.
import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  type EnvelopeV1,
  generateSigningKey,
  keyFingerprint,
  publicKeyFromPrivate,
  type ResultV1,
  rawPublicKey,
  type SigningKey,
  signResult,
} from '../../dist/index.js';

const example = readFileSync(
  new URL('../../../../schemas/examples/valid/suite-run.json', import.meta.url),
  'utf8',
);

export const key: SigningKey = generateSigningKey();
export const otherKey: SigningKey = generateSigningKey();

/** A fresh copy of schemas/examples/valid/suite-run.json: Redis 7.4.1, bare metal, SET and GET at P1. */
export function suiteRun(): ResultV1 {
  return JSON.parse(example) as ResultV1;
}

/** The example with a distinct keyPrefix, so that each `n` is a different result (a different id). */
export function variant(n: number, edit?: (r: ResultV1) => void): ResultV1 {
  const r = suiteRun();
  r.keyPrefix = `rbdb:${n.toString(16).padStart(6, '0')}:`;
  edit?.(r);
  return r;
}

export function envelope(r: ResultV1, k: SigningKey = key): EnvelopeV1 {
  return signResult(r, k.privateKeyPem);
}

/** The body a client sends. */
export function body(r: ResultV1, k: SigningKey = key): string {
  return JSON.stringify(envelope(r, k), null, 2);
}

/**
 * An envelope around any payload text, validly signed: for payloads signResult refuses (not
 * canonical, not result.v1), so that only the check under test can catch them.
 */
export function signPayload(payload: string, k: SigningKey = key): string {
  const raw = rawPublicKey(publicKeyFromPrivate(k.privateKeyPem));
  const env: EnvelopeV1 = {
    schema: 'redis-benchdb/envelope.v1',
    payload,
    signature: sign(null, Buffer.from(payload, 'utf8'), createPrivateKey(k.privateKeyPem)).toString('base64'),
    publicKey: raw.toString('base64'),
    keyFingerprint: keyFingerprint(raw),
  };
  return JSON.stringify(env);
}
