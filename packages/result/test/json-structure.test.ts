import {
  body,
  duplicateFingerprintEnvelope,
  duplicateKeyPayloadEnvelope,
  duplicatePayloadEnvelope,
  nestedPayloadEnvelope,
  suiteRun,
} from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import {
  checkJsonStructure,
  JsonStructureError,
  MAX_JSON_DEPTH,
  verifyEnvelope,
  verifyEnvelopeText,
} from '../src/index.js';

function refusal(text: string): JsonStructureError {
  try {
    checkJsonStructure(text, 'document');
  } catch (e) {
    if (e instanceof JsonStructureError) return e;
    throw e;
  }
  throw new Error('accepted');
}

const depth = (v: unknown): number =>
  v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0;

describe('checkJsonStructure', () => {
  it('passes what the runner writes, which nests far less deep than the limit', () => {
    const text = body(suiteRun());
    expect(() => checkJsonStructure(text, 'envelope')).not.toThrow();
    const payload = (JSON.parse(text) as { payload: string }).payload;
    expect(() => checkJsonStructure(payload, 'payload')).not.toThrow();
    expect(depth(JSON.parse(payload))).toBe(7);
    expect(MAX_JSON_DEPTH).toBeGreaterThanOrEqual(4 * 7);
  });

  it('refuses a key given twice, in any spelling, naming its path', () => {
    const e = refusal('{"a":[{"b":1},{"x":{"p\\u0061yload":1,"payload":2}}]}');
    expect(e.code).toBe('DUPLICATE_KEY');
    expect(e.path).toBe('/a/1/x/payload');
    expect(e.message).toContain(
      'the key "payload" twice at /a/1/x/payload (spelt "p\\u0061yload" and "payload")',
    );
    expect(refusal('{"k":1,"k":1}').path).toBe('/k');
  });

  it('tells keys from string values, escaped quotes and backslashes included', () => {
    const ok = [
      '{"a":"a","b":"a"}',
      '{"a":"\\"b\\":","b":1}',
      '{"a\\\\":1,"a":2}',
      '[{"a":1},{"a":1}]',
      '{"a":{"a":1}}',
    ];
    for (const text of ok) expect(() => checkJsonStructure(text, 'document'), text).not.toThrow();
  });

  it('refuses nesting past the limit at once, however deep the text goes', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const e = refusal(deep);
    expect(e.code).toBe('TOO_DEEP');
    expect(e.path).toBe(`/0`.repeat(MAX_JSON_DEPTH));
    expect(() =>
      checkJsonStructure(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`, 'x'),
    ).not.toThrow();
  });
});

describe('verifyEnvelopeText', () => {
  it('refuses an envelope with two payload keys, which verifyEnvelope on JSON.parse would pass', () => {
    const text = duplicatePayloadEnvelope();
    expect(verifyEnvelope(JSON.parse(text)).ok).toBe(true); // why the text must be read
    const v = verifyEnvelopeText(text);
    expect(v).toMatchObject({ ok: false, code: 'DUPLICATE_KEY' });
    expect(v.ok || v.message).toContain('the envelope has the key "payload" twice at /payload');
  });

  it('refuses a signed payload nested 100,000 deep, and one with a duplicate key', () => {
    expect(verifyEnvelopeText(nestedPayloadEnvelope(100_000))).toMatchObject({ ok: false, code: 'TOO_DEEP' });
    const dup = verifyEnvelopeText(duplicateKeyPayloadEnvelope());
    expect(dup).toMatchObject({ ok: false, code: 'DUPLICATE_KEY' });
    expect(dup.ok || dup.message).toContain('the payload has the key "cells" twice at /cells');
    const fp = verifyEnvelopeText(duplicateFingerprintEnvelope());
    expect(fp.ok || fp.message).toContain('the envelope has the key "keyFingerprint" twice');
  });

  it('passes a real envelope', () => {
    expect(verifyEnvelopeText(body(suiteRun())).ok).toBe(true);
  });
});
