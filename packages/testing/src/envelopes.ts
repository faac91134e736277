// Real signed envelopes for tests of every package that stores or serves results (db, server).
// It imports the result package by name, as a client would: run `pnpm -s build` first.
import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  canonicalJson,
  type EnvelopeV1,
  generateSigningKey,
  keyFingerprint,
  publicKeyFromPrivate,
  type ResultV1,
  rawPublicKey,
  type SigningKey,
  signResult,
  workloadFingerprint,
} from '@redis-benchdb/result';
import { remeasured } from './remeasure.js';

const example = readFileSync(
  new URL('../../../schemas/examples/valid/suite-run.json', import.meta.url),
  'utf8',
);

export const key: SigningKey = generateSigningKey();
export const otherKey: SigningKey = generateSigningKey();

/** A key's fingerprint, as a signed result names it: what key_signers and `--project-keys` name. */
export function fingerprintOf(k: SigningKey): string {
  return keyFingerprint(rawPublicKey(publicKeyFromPrivate(k.privateKeyPem)));
}

/** Set every cell's pipeline depth, keeping its workload fingerprint true to the workload. */
export function withPipeline(r: ResultV1, depth: number): void {
  for (const c of r.cells) {
    c.workload.pipelineDepth = depth;
    c.label = `${c.test} P${depth}`;
    c.workloadFingerprint = workloadFingerprint(c.workload);
  }
}

/** When the example results are judged: a few days after they ran. */
export const NOW = new Date('2025-03-06T12:00:00Z');

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

/**
 * variant(n) as another machine's own run would give it: its own histograms (remeasure.ts), so it is
 * not disputed as a copy (db disputes.ts) when a second key signs it beside variant(m).
 */
export function otherRun(n: number, edit?: (r: ResultV1) => void): ResultV1 {
  return remeasured(variant(n, edit), 1 + n / 1000);
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

/**
 * A result bound to `k` and signed as any client can sign it, without signResult's checks (its
 * identity-text check refuses lookalike names before signing): what an attacker sends.
 */
export function handSignedBody(r: ResultV1, k: SigningKey = key): string {
  const fingerprint = keyFingerprint(rawPublicKey(publicKeyFromPrivate(k.privateKeyPem)));
  return signPayload(canonicalJson({ ...r, keyFingerprint: fingerprint }), k);
}

/**
 * A result as runners before 2026-11-28 signed it: the payload binds no key (as every file of data/
 * does), so any key may sign the very same payload (issue 30 item 1).
 */
export function legacyBody(r: ResultV1, k: SigningKey = key): string {
  return signPayload(canonicalJson(r), k);
}

/**
 * Issue 30 item 1's copier: takes someone's signed envelope (text), binds its payload to the key `k`
 * and signs it. The measurements are the same; the id differs, since the binding is in the payload.
 */
export function reboundBody(envelopeText: string, k: SigningKey): string {
  const doc = JSON.parse((JSON.parse(envelopeText) as EnvelopeV1).payload) as ResultV1;
  return body({ ...doc, keyFingerprint: keyFingerprint(publicKeyFromPrivate(k.privateKeyPem)) }, k);
}

// Hostile envelopes of issue 11 (rows 4 and 5), for the tests of every package that reads one.

/**
 * Row 5: an envelope carrying two payloads, the first unsigned (another result, spelt
 * `p\u0061yload`), the second the signed one. JSON.parse keeps the last, so the signature checks out;
 * stored as received, GET and export would serve the first.
 */
export function duplicatePayloadEnvelope(r: ResultV1 = suiteRun(), k: SigningKey = key): string {
  const env = envelope(r, k);
  const unsigned = JSON.stringify({ ...r, keyPrefix: 'rbdb:forged:' });
  return `{"schema":${JSON.stringify(env.schema)},"p\\u0061yload":${JSON.stringify(unsigned)},"payload":${JSON.stringify(env.payload)},"signature":"${env.signature}","publicKey":"${env.publicKey}","keyFingerprint":"${env.keyFingerprint}"}`;
}

/** Row 5: two `keyFingerprint` keys, the first naming someone else's key. */
export function duplicateFingerprintEnvelope(r: ResultV1 = suiteRun(), k: SigningKey = key): string {
  const env = envelope(r, k);
  const forged = `sha256:${'0'.repeat(64)}`;
  return JSON.stringify(env).replace('"keyFingerprint":', `"keyFingerprint":"${forged}","keyFingerprint":`);
}

/** A validly signed payload with a key given twice inside it (`"c\u0065lls"` then `"cells"`). */
export function duplicateKeyPayloadEnvelope(r: ResultV1 = suiteRun(), k: SigningKey = key): string {
  const payload = envelope(r, k).payload.replace('{"cells":', '{"c\\u0065lls":[],"cells":');
  return signPayload(payload, k);
}

/** Row 4: a validly signed payload of arrays nested `depth` deep. */
export function nestedPayloadEnvelope(depth: number, k: SigningKey = key): string {
  return signPayload(`{"cells":${'['.repeat(depth)}${']'.repeat(depth)}}`, k);
}
