import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  checkEnvelopeSignature,
  type EnvelopeV1,
  generateSigningKey,
  keyFingerprint,
  publicKeyFromPrivate,
  type ResultV1,
  rawPublicKey,
  signResult,
  type VerifyCode,
  verifyEnvelope,
  verifyEnvelopeText,
} from '../src/index.js';

const example = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../../schemas/examples/valid/${name}`, import.meta.url), 'utf8'));
const minimal = () => example('minimal.json') as ResultV1;

const key = generateSigningKey();
const envelope = signResult(minimal(), key.privateKeyPem);

/** Sign arbitrary payload text, bypassing signResult's checks, to build envelopes it would refuse to. */
function envelopeOf(payload: string, privateKeyPem = key.privateKeyPem): EnvelopeV1 {
  const raw = rawPublicKey(publicKeyFromPrivate(privateKeyPem));
  return {
    schema: 'redis-benchdb/envelope.v1',
    payload,
    signature: sign(null, Buffer.from(payload, 'utf8'), createPrivateKey(privateKeyPem)).toString('base64'),
    publicKey: raw.toString('base64'),
    keyFingerprint: keyFingerprint(raw),
  };
}

/** The failure's message, once its code is the one expected: programs decide by the code. */
function reason(outcome: ReturnType<typeof verifyEnvelope>, code: VerifyCode): string {
  if (outcome.ok) throw new Error('verified, expected a failure');
  expect(outcome.code).toBe(code);
  expect(outcome.problems.length).toBeGreaterThan(0);
  return outcome.message;
}

describe('keys', () => {
  it('are Ed25519 PEM pairs; the public key follows from the private one', () => {
    expect(key.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(key.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(publicKeyFromPrivate(key.privateKeyPem)).toBe(key.publicKeyPem);
    expect(rawPublicKey(key.publicKeyPem)).toHaveLength(32);
  });

  it('fingerprint the raw public key, from PEM or bytes alike', () => {
    const fp = keyFingerprint(key.publicKeyPem);
    expect(fp).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(keyFingerprint(rawPublicKey(key.publicKeyPem))).toBe(fp);
    expect(keyFingerprint(generateSigningKey().publicKeyPem)).not.toBe(fp);
    expect(() => keyFingerprint(Buffer.alloc(31))).toThrow(/32 bytes/);
  });

  it('refuse other key types', () => {
    const rsa = `-----BEGIN PUBLIC KEY-----
MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAMzQ6ED0r6P2LyGC7pk0Vqx3Mxgiq6bW
MaAw2rKdCCTPBtmFE3zeM1c+vHvwrn2VZN1ppXNGgYdr0Ku17Ye5WtMCAwEAAQ==
-----END PUBLIC KEY-----`;
    expect(() => rawPublicKey(rsa)).toThrow(/Ed25519/);
  });
});

describe('signResult / verifyEnvelope', () => {
  it('round-trips: the envelope verifies and gives back the document', () => {
    const outcome = verifyEnvelope(envelope);
    const bound = { ...minimal(), keyFingerprint: keyFingerprint(key.publicKeyPem) };
    expect(outcome).toEqual({ ok: true, result: bound, keyFingerprint: keyFingerprint(key.publicKeyPem) });
    expect(envelope.payload).toBe(canonicalJson(bound));
    expect(envelope.publicKey).toBe(rawPublicKey(key.publicKeyPem).toString('base64'));
  });

  it('binds the signing key in the payload, and refuses to sign a result bound to another key', () => {
    expect(JSON.parse(envelope.payload).keyFingerprint).toBe(envelope.keyFingerprint);
    // Signing a bound result again with its own key changes nothing.
    expect(signResult(JSON.parse(envelope.payload), key.privateKeyPem).payload).toBe(envelope.payload);
    const other = generateSigningKey();
    expect(() => signResult(JSON.parse(envelope.payload), other.privateKeyPem)).toThrow(
      `cannot sign a result bound to the key ${envelope.keyFingerprint} with the key ${keyFingerprint(other.publicKeyPem)}`,
    );
  });

  it('refuses a bound payload re-signed by another key: the copy must change the binding, so its id', () => {
    const other = generateSigningKey();
    const copy = envelopeOf(envelope.payload, other.privateKeyPem);
    expect(reason(verifyEnvelope(copy), 'KEY_MISMATCH')).toBe(
      `key binding: the result is bound to the key ${envelope.keyFingerprint} but signed by ${copy.keyFingerprint}: a result re-signed by another key is not its measurer's; submit the file your own run signed`,
    );
  });

  it('still verifies a result signed before the binding (no keyFingerprint in the payload), by any key', () => {
    const legacy = envelopeOf(canonicalJson(minimal()));
    expect(verifyEnvelope(legacy)).toEqual({
      ok: true,
      result: minimal(),
      keyFingerprint: legacy.keyFingerprint,
    });
    const other = generateSigningKey();
    expect(verifyEnvelope(envelopeOf(canonicalJson(minimal()), other.privateKeyPem)).ok).toBe(true);
  });

  it('verifies the checked-in example envelope and the larger examples once signed', () => {
    expect(verifyEnvelope(example('minimal.envelope.json')).ok).toBe(true);
    for (const name of ['suite-run.json', 'adhoc-open-loop-macos.json']) {
      const outcome = verifyEnvelope(signResult(example(name), key.privateKeyPem));
      expect(outcome.ok).toBe(true);
    }
  });

  it('survives a trip through a file', () => {
    expect(verifyEnvelope(JSON.parse(JSON.stringify(envelope, null, 2))).ok).toBe(true);
  });

  it('never puts the private key in the envelope', () => {
    const text = JSON.stringify(envelope);
    const body = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
    expect(text).not.toContain(body(key.privateKeyPem));
    // The raw 32-byte seed, in the encodings it could take.
    const jwk = createPrivateKey(key.privateKeyPem).export({ format: 'jwk' });
    const seed = Buffer.from(jwk.d!, 'base64url');
    for (const enc of ['base64', 'base64url', 'hex'] as const) expect(text).not.toContain(seed.toString(enc));
    expect(Object.keys(envelope).sort()).toEqual([
      'keyFingerprint',
      'payload',
      'publicKey',
      'schema',
      'signature',
    ]);
  });

  it('refuses to sign an invalid result', () => {
    const doc = minimal() as unknown as Record<string, unknown>;
    delete doc.keyPrefix;
    expect(() => signResult(doc, key.privateKeyPem)).toThrow(/cannot sign an invalid result: \/keyPrefix: /);
  });
});

describe('verifyEnvelope failures', () => {
  it('a bad envelope shape', () => {
    const { signature: _, ...unsigned } = envelope;
    expect(reason(verifyEnvelope(unsigned), 'INVALID_ENVELOPE')).toBe(
      'envelope schema: /signature: is required but missing',
    );
    expect(reason(verifyEnvelope(null), 'INVALID_ENVELOPE')).toMatch(
      /^envelope schema: \(document\): must be object/,
    );
  });

  it('another key signed it (the envelope names the other key)', () => {
    const other = generateSigningKey();
    const forged = { ...envelope, signature: envelopeOf(envelope.payload, other.privateKeyPem).signature };
    expect(reason(verifyEnvelope(forged), 'BAD_SIGNATURE')).toBe(
      'signature does not match the payload (the file was changed after signing)',
    );
  });

  it('the fingerprint is not the public key’s', () => {
    const other = keyFingerprint(generateSigningKey().publicKeyPem);
    expect(reason(verifyEnvelope({ ...envelope, keyFingerprint: other }), 'FINGERPRINT_MISMATCH')).toBe(
      'key fingerprint does not match the public key',
    );
    // Swapping in another public key without its fingerprint is caught the same way.
    const otherKey = rawPublicKey(generateSigningKey().publicKeyPem).toString('base64');
    expect(reason(verifyEnvelope({ ...envelope, publicKey: otherKey }), 'FINGERPRINT_MISMATCH')).toBe(
      'key fingerprint does not match the public key',
    );
  });

  it('a changed payload', () => {
    const changed = envelope.payload.replace('"completed":2000', '"completed":2001');
    expect(changed).not.toBe(envelope.payload);
    expect(reason(verifyEnvelope({ ...envelope, payload: changed }), 'BAD_SIGNATURE')).toBe(
      'signature does not match the payload (the file was changed after signing)',
    );
  });

  it('a signed payload that is not canonical (same JSON, keys reordered or spaced)', () => {
    const doc = minimal();
    const reordered = JSON.stringify(doc); // schema first, not sorted
    expect(JSON.parse(reordered)).toEqual(doc);
    expect(reason(verifyEnvelope(envelopeOf(reordered)), 'NOT_CANONICAL')).toBe(
      'payload is not canonical JSON',
    );
    expect(
      reason(
        verifyEnvelope(envelopeOf(JSON.stringify(JSON.parse(envelope.payload), null, 1))),
        'NOT_CANONICAL',
      ),
    ).toBe('payload is not canonical JSON');
  });

  it('a signed payload that is not JSON', () => {
    expect(reason(verifyEnvelope(envelopeOf(`${envelope.payload}}`)), 'PAYLOAD_NOT_JSON')).toBe(
      'payload is not valid JSON',
    );
  });

  it('a signed, canonical payload that is not a valid result', () => {
    const doc = minimal() as unknown as { cells: { workload: { pipelineMode: string } }[] };
    doc.cells[0]!.workload.pipelineMode = 'pipelined';
    expect(reason(verifyEnvelope(envelopeOf(canonicalJson(doc))), 'INVALID_RESULT')).toMatch(
      /^result schema: \/cells\/0\/workload\/pipelineMode: must be one of/,
    );
  });

  it('base64 with stray low bits, which decodes to the same bytes', () => {
    // The last character before the padding carries unused bits (2 in the key, 4 in the signature).
    const flipLast = (b64: string, pad: number) => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
      const i = b64.length - 1 - pad;
      const c = alphabet[alphabet.indexOf(b64[i]!) ^ 1]!;
      return b64.slice(0, i) + c + b64.slice(i + 1);
    };
    const sig = flipLast(envelope.signature, 2);
    expect(Buffer.from(sig, 'base64')).toEqual(Buffer.from(envelope.signature, 'base64'));
    expect(reason(verifyEnvelope({ ...envelope, signature: sig }), 'BAD_SIGNATURE')).toBe(
      'signature is not the base64 of 64 bytes',
    );
    const pub = flipLast(envelope.publicKey, 1);
    expect(Buffer.from(pub, 'base64')).toEqual(Buffer.from(envelope.publicKey, 'base64'));
    expect(reason(verifyEnvelope({ ...envelope, publicKey: pub }), 'BAD_PUBLIC_KEY')).toBe(
      'publicKey is not the base64 of 32 bytes',
    );
  });
});

describe('verifyEnvelope codes for documents of another kind, and the reasons behind a code', () => {
  it('UNSUPPORTED_SCHEMA for an envelope or a payload of another version', () => {
    const v2 = verifyEnvelope({ ...envelope, schema: 'redis-benchdb/envelope.v2' });
    expect(v2).toMatchObject({ ok: false, code: 'UNSUPPORTED_SCHEMA', path: '/schema' });
    const doc = { ...minimal(), schema: 'redis-benchdb/result.v2' };
    expect(reason(verifyEnvelope(envelopeOf(canonicalJson(doc))), 'UNSUPPORTED_SCHEMA')).toBe(
      'unsupported result schema "redis-benchdb/result.v2"; this redis-benchdb supports redis-benchdb/result.v1',
    );
  });

  it('NOT_CANONICAL lists the numbers JSON.parse made infinite, each IMPLAUSIBLE at its path', () => {
    const payload = canonicalJson(minimal()).replace('"completed":2000', '"completed":1e999');
    const v = verifyEnvelope(envelopeOf(payload));
    expect(reason(v, 'NOT_CANONICAL')).toBe('payload is not canonical JSON');
    expect(v.ok || v.problems[0]).toMatchObject({ code: 'IMPLAUSIBLE', path: '/cells/0/completed' });
  });

  it('INVALID_RESULT and INVALID_ENVELOPE keep each schema error, coded by the rule it broke', () => {
    const { signature: _, ...unsigned } = envelope;
    const v = verifyEnvelope(unsigned);
    expect(v.ok || v.problems).toEqual([
      { code: 'REQUIRED', path: '/signature', message: '/signature: is required but missing' },
    ]);
    expect(v).toMatchObject({ path: '/signature' });
    const doc = minimal() as unknown as { cells: { workload: { pipelineMode: string } }[] };
    doc.cells[0]!.workload.pipelineMode = 'pipelined';
    const r = verifyEnvelope(envelopeOf(canonicalJson(doc)));
    expect(r.ok || r.problems[0]).toMatchObject({ code: 'ENUM', path: '/cells/0/workload/pipelineMode' });
  });

  it('MALFORMED_JSON for text that is not JSON', () => {
    const v = verifyEnvelopeText(`${JSON.stringify(envelope)}}`);
    expect(v).toMatchObject({ ok: false, code: 'MALFORMED_JSON', path: '' });
  });
});

describe('a one-byte change anywhere in the envelope file never verifies', () => {
  /** What a tampered file gives: 'ok' must never come out. */
  function outcome(bytes: Buffer): 'ok' | 'unparsable' | string {
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      return 'unparsable';
    }
    const v = verifyEnvelope(parsed);
    return v.ok ? 'ok' : v.message;
  }

  /** Printable ASCII other than `original`: a neighbour in the table and one further off. */
  function replacements(original: number, position: number): number[] {
    const printable = (c: number) => 0x20 + ((((c - 0x20) % 95) + 95) % 95);
    const near = printable(original + 1);
    const far = printable(original + 17 + (position % 50));
    return [...new Set([near, far])].filter((c) => c !== original);
  }

  function tamper(file: Buffer, positions: Iterable<number>) {
    const reasons = new Map<string, number>();
    let tried = 0;
    for (const pos of positions) {
      for (const c of replacements(file[pos]!, pos)) {
        const copy = Buffer.from(file);
        copy[pos] = c;
        const r = outcome(copy);
        if (r === 'ok')
          throw new Error(
            `byte ${pos} (${String.fromCharCode(file[pos]!)} -> ${String.fromCharCode(c)}) verified`,
          );
        reasons.set(r, (reasons.get(r) ?? 0) + 1);
        tried++;
      }
    }
    return { tried, reasons };
  }

  it('every byte of a small signed document’s file', () => {
    const file = Buffer.from(`${JSON.stringify(envelope, null, 2)}\n`, 'utf8');
    expect(outcome(file)).toBe('ok');
    const { tried, reasons } = tamper(file, file.keys());
    expect(tried).toBeGreaterThan(file.length);
    // Each kind of check caught something.
    const seen = [...reasons.keys()].join('\n');
    expect(seen).toContain('unparsable');
    expect(seen).toContain('envelope schema: ');
    expect(seen).toContain('key fingerprint does not match the public key');
    expect(seen).toContain('signature does not match the payload');
  });

  it('a larger document: 300 evenly spaced bytes and the payload’s first 200', () => {
    const big = signResult(example('adhoc-open-loop-macos.json'), key.privateKeyPem);
    const file = Buffer.from(`${JSON.stringify(big, null, 2)}\n`, 'utf8');
    expect(outcome(file)).toBe('ok');
    const spaced = Array.from({ length: 300 }, (_, i) => Math.floor((i * (file.length - 1)) / 299));
    const payloadAt = file.indexOf('"payload": "') + '"payload": "'.length;
    const head = Array.from({ length: 200 }, (_, i) => payloadAt + i);
    const { tried } = tamper(file, new Set([...spaced, ...head]));
    expect(tried).toBeGreaterThanOrEqual(500);
  });

  it('a multi-byte UTF-8 character in the payload', () => {
    const doc = minimal();
    // ® rather than ™: signing refuses ™ in a CPU model, a compatibility form of "TM" (identity-text.ts).
    doc.environment.client.cpu.model = 'Prozessor® Ünïcode 処理装置 🚀';
    const signed = signResult(doc, key.privateKeyPem);
    const file = Buffer.from(JSON.stringify(signed), 'utf8');
    const at = file.indexOf(Buffer.from('Prozessor', 'utf8'));
    const { tried } = tamper(
      file,
      Array.from({ length: 40 }, (_, i) => at + i),
    );
    expect(tried).toBeGreaterThan(40);
  });
});

describe('checkEnvelopeSignature (the signature alone, for results verified when stored)', () => {
  it('accepts a signed envelope and returns its payload', () => {
    const out = checkEnvelopeSignature(envelope);
    expect(out).toEqual({ ok: true, payload: envelope.payload, keyFingerprint: envelope.keyFingerprint });
  });

  it('refuses a changed payload, another key, a wrong fingerprint and a non-envelope', () => {
    const changed = { ...envelope, payload: envelope.payload.replace('"', ' "') };
    expect(checkEnvelopeSignature(changed)).toMatchObject({ ok: false, reason: /changed after signing/ });
    const other = envelopeOf(envelope.payload, generateSigningKey().privateKeyPem);
    expect(checkEnvelopeSignature({ ...other, signature: envelope.signature })).toMatchObject({ ok: false });
    expect(checkEnvelopeSignature({ ...envelope, keyFingerprint: other.keyFingerprint })).toMatchObject({
      ok: false,
      reason: /fingerprint/,
    });
    expect(checkEnvelopeSignature({ payload: 1 })).toMatchObject({ ok: false, reason: /not an envelope/ });
  });
});
