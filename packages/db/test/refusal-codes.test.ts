import { canonicalJson, type EnvelopeV1, keyFingerprint, signResult } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { checkSignedHere, checkSubmission, IngestError } from '../src/checks.js';
import { envelope, key, NOW, otherKey, signPayload, suiteRun } from './fixtures.js';

/** The refusal checkSubmission throws: its code, status and words. */
function refusal(
  body: string,
  check: (body: string, opts: { now: Date }) => unknown = checkSubmission,
): Pick<IngestError, 'code' | 'status' | 'message'> {
  try {
    check(body, { now: NOW });
  } catch (e) {
    if (!(e instanceof IngestError)) throw e;
    return { code: e.code, status: e.status, message: e.message };
  }
  throw new Error('the submission passed, expected a refusal');
}

const env = envelope(suiteRun());
const text = (e: unknown) => JSON.stringify(e);
/** The base64 with its last significant character's unused low bit flipped: the same bytes, other text. */
const flipLast = (b64: string, pad: number) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const i = b64.length - 1 - pad;
  return b64.slice(0, i) + alphabet[alphabet.indexOf(b64[i]!) ^ 1]! + b64.slice(i + 1);
};

// Each of verifyEnvelope's codes (packages/result verify.ts), and the refusal the service answers it
// with: the mapping is by code, so each row fails if a code stops reaching its refusal.
describe("verifyEnvelope's codes, as ingest's refusals", () => {
  it.each<[string, () => string, IngestError['code'], number, string]>([
    [
      'INVALID_ENVELOPE',
      () => text({ ...env, signature: undefined }),
      'INVALID_ENVELOPE',
      422,
      'invalid envelope: /signature: is required but missing',
    ],
    [
      'BAD_PUBLIC_KEY',
      () => text({ ...env, publicKey: flipLast(env.publicKey, 1) }),
      'BAD_SIGNATURE',
      422,
      'bad signature: publicKey is not the base64 of 32 bytes',
    ],
    [
      'FINGERPRINT_MISMATCH',
      () => text({ ...env, keyFingerprint: keyFingerprint(otherKey.publicKeyPem) }),
      'BAD_SIGNATURE',
      422,
      'bad signature: key fingerprint does not match the public key',
    ],
    [
      'BAD_SIGNATURE',
      () => text({ ...env, signature: envelope(suiteRun(), otherKey).signature }),
      'BAD_SIGNATURE',
      422,
      'bad signature: signature does not match the payload (the file was changed after signing)',
    ],
    [
      'PAYLOAD_NOT_JSON',
      () => signPayload(`${env.payload}}`),
      'INVALID_ENVELOPE',
      422,
      'invalid envelope: payload is not valid JSON',
    ],
    [
      'NOT_CANONICAL',
      () => signPayload(JSON.stringify(suiteRun(), null, 1)),
      'INVALID_ENVELOPE',
      422,
      'invalid envelope: payload is not canonical JSON (RFC 8785)',
    ],
    [
      'UNSUPPORTED_SCHEMA',
      () => signPayload(canonicalJson({ ...suiteRun(), schema: 'redis-benchdb/result.v2' })),
      'UNSUPPORTED_SCHEMA',
      422,
      'unsupported result schema "redis-benchdb/result.v2"; this redis-benchdb supports redis-benchdb/result.v1 (a newer version may need a newer server)',
    ],
    [
      'KEY_MISMATCH',
      () => signPayload(env.payload, otherKey),
      'KEY_MISMATCH',
      422,
      `refused: the result is bound to the key ${env.keyFingerprint} but signed by ${keyFingerprint(otherKey.publicKeyPem)}: a result re-signed by another key is not its measurer's; submit the file your own run signed`,
    ],
    [
      'TOO_DEEP (payload)',
      () => signPayload(`{"cells":${'['.repeat(40)}${']'.repeat(40)}}`),
      'TOO_DEEP',
      400,
      'invalid envelope: the payload nests objects and arrays more than 32 deep (at /cells/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0); a redis-benchdb document nests at most 7',
    ],
  ])('%s', (_, body, code, status, message) => {
    expect(refusal(body())).toEqual({ code, status, message });
  });

  it('NOT_CANONICAL because a signed number is 1e999: IMPLAUSIBLE, naming the number', () => {
    const payload = env.payload.replace('"median":131204', '"median":1e999');
    expect(refusal(signPayload(payload))).toMatchObject({
      code: 'IMPLAUSIBLE',
      status: 422,
      message: 'implausible result: /cells/1/opsPerSec/median: Infinity is not a finite number',
    });
  });

  it('INVALID_RESULT lists the first three schema errors and counts the rest', () => {
    const r = suiteRun() as unknown as Record<string, unknown>;
    for (const field of ['keyPrefix', 'runner', 'target', 'suite', 'environment']) delete r[field];
    const e = refusal(signPayload(canonicalJson(r)));
    expect(e.code).toBe('INVALID_RESULT');
    expect(e.message).toMatch(/^invalid result: \/\w+: is required but missing; .*; .* \(and \d+ more\)$/);
  });
});

describe('checkSignedHere: an envelope this process just signed', () => {
  it('gives the rows checkSubmission gives for the same envelope', () => {
    const signed = signResult(suiteRun(), key.privateKeyPem);
    expect(checkSignedHere(signed, { now: NOW })).toEqual(checkSubmission(text(signed), { now: NOW }));
  });

  it('still makes the checks after the signature, by their codes', () => {
    const r = suiteRun();
    r.warnings.push({ code: 'WRONG_REPLIES', cell: r.cells[0]!.label, message: 'GET answered integers.' });
    const signed: EnvelopeV1 = signResult(r, key.privateKeyPem);
    const here = (body: string) => checkSignedHere(JSON.parse(body) as EnvelopeV1, { now: NOW });
    expect(refusal(text(signed), here)).toMatchObject({ code: 'WRONG_REPLIES', status: 422 });
    expect(refusal(text(signed), here)).toEqual(refusal(text(signed)));
  });
});
