import { generateSigningKey, keyFingerprint, type ResultV1, verifyEnvelopeText } from '@redis-benchdb/result';
import { suiteRun } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import { signOwnResult } from '../src/run/keep.js';
import type { SigningKey } from '../src/signing-key.js';

const pair = generateSigningKey();
const key: SigningKey = { ...pair, fingerprint: keyFingerprint(pair.publicKeyPem), path: '(not written)' };

describe('signOwnResult: the one validation a run makes of its document', () => {
  it('binds the key, and gives the text a verifier accepts and the envelope it was made from', () => {
    const signed = signOwnResult(suiteRun() as ResultV1, key);
    expect(signed.bound.keyFingerprint).toBe(key.fingerprint);
    expect(JSON.parse(signed.text)).toEqual(signed.envelope);
    const v = verifyEnvelopeText(signed.text);
    expect(v.ok && v.result).toEqual(signed.bound);
  });

  it('calls a document that does not validate a bug of redis-benchdb, naming the path', () => {
    const doc = suiteRun() as unknown as Record<string, unknown>;
    delete doc.keyPrefix;
    expect(() => signOwnResult(doc as unknown as ResultV1, key)).toThrow(
      'the result could not be signed (a redis-benchdb bug): cannot sign an invalid result: /keyPrefix: is required but missing',
    );
  });
});
