import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { canonicalJson } from './canonical.js';
import type { EnvelopeV1, ResultV1 } from './generated/result-v1.js';
import { checkJsonStructure, JsonStructureError } from './json-structure.js';
import { describeProblems, type Problem } from './problem.js';
import { ENVELOPE_SCHEMA_ID, RESULT_SCHEMA_ID, validateEnvelope, validateResult } from './schema.js';
import { keyFingerprint, strictBase64 } from './sign.js';
import { checkNumbers } from './submission/plausibility.js';

/** Why an envelope does not verify: one code per check, in the order verifyEnvelope makes them. */
export type VerifyCode =
  /** The text repeats a key in one object (verifyEnvelopeText, or in the payload). */
  | 'DUPLICATE_KEY'
  /** The text nests deeper than MAX_JSON_DEPTH (the envelope's, or the payload's). */
  | 'TOO_DEEP'
  /** The envelope text is not JSON (verifyEnvelopeText). */
  | 'MALFORMED_JSON'
  /** A document of another kind or version: the envelope's `schema`, or the payload's. */
  | 'UNSUPPORTED_SCHEMA'
  | 'INVALID_ENVELOPE'
  /** publicKey is not the base64 of an Ed25519 public key. */
  | 'BAD_PUBLIC_KEY'
  | 'FINGERPRINT_MISMATCH'
  /** signature is not the base64 of 64 bytes, or does not match the payload. */
  | 'BAD_SIGNATURE'
  | 'PAYLOAD_NOT_JSON'
  /** The payload is JSON but not its RFC 8785 form (so one result would have many payloads). */
  | 'NOT_CANONICAL'
  | 'INVALID_RESULT'
  /** The result binds another key than the one that signed it: a re-signed copy. */
  | 'KEY_MISMATCH';

export type VerifyFailure = { ok: false } & Problem<VerifyCode> & {
    /**
     * The particulars, without the check's own words: each schema error, each number that is not
     * finite (why a payload cannot be canonical), or the one problem itself. Paths point into the
     * envelope for checks of the envelope, into the result for checks of the payload.
     */
    problems: readonly Problem[];
  };

export type VerifyOutcome = { ok: true; result: ResultV1; keyFingerprint: string } | VerifyFailure;

/**
 * Check an envelope, in order: its shape (envelope.v1), that the fingerprint is the key's, the
 * signature over the exact payload bytes, that the payload is JSON and canonical (so one result
 * has one payload), that the payload is a valid result.v1, and that the key it binds (results signed
 * from 2026-11-28 on bind one) is the key that signed it. A failure names the first check broken.
 *
 * It proves the document is unchanged since someone holding this key signed it: who that is, and
 * whether to trust the key, is the caller's business (compare `keyFingerprint`).
 */
export function verifyEnvelope(envelope: unknown): VerifyOutcome {
  const shape = validateEnvelope(envelope);
  if (!shape.ok) {
    const code =
      otherSchema(envelope, ENVELOPE_SCHEMA_ID) === undefined ? 'INVALID_ENVELOPE' : 'UNSUPPORTED_SCHEMA';
    return failMany(code, 'envelope schema', shape.errors);
  }
  const env = envelope as EnvelopeV1;
  const unsigned = checkSignature(env);
  if (unsigned) return unsigned;

  const payload = readPayload(env.payload);
  if ('ok' in payload) return payload;
  const result = payload.doc;

  const valid = validateResult(result);
  if (!valid.ok) {
    const found = otherSchema(result, RESULT_SCHEMA_ID);
    if (found !== undefined)
      return fail(
        'UNSUPPORTED_SCHEMA',
        '/schema',
        `unsupported result schema ${JSON.stringify(found)}; this redis-benchdb supports ${RESULT_SCHEMA_ID}`,
      );
    return failMany('INVALID_RESULT', 'result schema', valid.errors);
  }
  // Results signed before 2026-11-28 bind no key, and verify as they always did.
  const bound = (result as ResultV1).keyFingerprint;
  if (bound !== undefined && bound !== env.keyFingerprint)
    return failMany('KEY_MISMATCH', 'key binding', [
      {
        code: 'KEY_MISMATCH',
        path: '/keyFingerprint',
        message: `the result is bound to the key ${bound} but signed by ${env.keyFingerprint}: a result re-signed by another key is not its measurer's; submit the file your own run signed`,
      },
    ]);
  return { ok: true, result: result as ResultV1, keyFingerprint: env.keyFingerprint };
}

/**
 * verifyEnvelope for an envelope as text (a file, a request body): first refuses duplicate keys and
 * deep nesting in the text itself, which JSON.parse would hide (an envelope with two `payload`
 * keys carries one that was not signed). Use this, not JSON.parse and verifyEnvelope, for input.
 */
export function verifyEnvelopeText(text: string): VerifyOutcome {
  const structure = structureProblem(text, 'envelope');
  if (structure) return structure;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const why = (e as Error).message.replace(/\s+/g, ' ');
    return fail('MALFORMED_JSON', '', `not JSON (${why}): was the file cut short or edited?`);
  }
  return verifyEnvelope(doc);
}

/** The key, its fingerprint and the signature over the exact payload bytes; undefined when all hold. */
function checkSignature(env: EnvelopeV1): VerifyFailure | undefined {
  // The schema's patterns fix the lengths; the round trip also rejects base64 whose unused low bits
  // are set, which would decode to the same bytes and so let a changed character pass.
  const publicKey = strictBase64(env.publicKey, 32);
  if (!publicKey) return fail('BAD_PUBLIC_KEY', '/publicKey', 'publicKey is not the base64 of 32 bytes');
  const signature = strictBase64(env.signature, 64);
  if (!signature) return fail('BAD_SIGNATURE', '/signature', 'signature is not the base64 of 64 bytes');
  if (keyFingerprint(publicKey) !== env.keyFingerprint)
    return fail('FINGERPRINT_MISMATCH', '/keyFingerprint', 'key fingerprint does not match the public key');
  let key: KeyObject;
  try {
    key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') },
      format: 'jwk',
    });
  } catch {
    return fail('BAD_PUBLIC_KEY', '/publicKey', 'publicKey is not an Ed25519 public key');
  }
  let signed: boolean;
  try {
    signed = verify(null, Buffer.from(env.payload, 'utf8'), key, signature);
  } catch {
    signed = false;
  }
  if (signed) return undefined;
  return fail(
    'BAD_SIGNATURE',
    '/signature',
    'signature does not match the payload (the file was changed after signing)',
  );
}

/** The signed payload read as JSON, if it is JSON in its one canonical form. */
function readPayload(text: string): { doc: unknown } | VerifyFailure {
  // Before JSON.parse, which would keep the last of two keys and take seconds on deep nesting.
  const structure = structureProblem(text, 'payload');
  if (structure) return structure;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return fail('PAYLOAD_NOT_JSON', '/payload', 'payload is not valid JSON');
  }
  let canonical: string | undefined;
  try {
    canonical = canonicalJson(doc);
  } catch {
    canonical = undefined;
  }
  if (canonical === text) return { doc };
  // JSON.parse reads 1e999 as Infinity, which has no canonical form: those numbers are the reason.
  const numbers = checkNumbers(doc);
  const self = { code: 'NOT_CANONICAL', path: '/payload', message: 'payload is not canonical JSON' };
  return { ok: false, ...self, problems: numbers.length > 0 ? numbers : [self] } as VerifyFailure;
}

function structureProblem(text: string, what: 'envelope' | 'payload'): VerifyFailure | undefined {
  try {
    checkJsonStructure(text, what);
    return undefined;
  } catch (e) {
    if (e instanceof JsonStructureError) return fail(e.code, e.path, e.message);
    throw e;
  }
}

/** The `schema` a document names when it names another kind or version than `expected`. */
function otherSchema(doc: unknown, expected: string): string | undefined {
  if (doc === null || typeof doc !== 'object' || !('schema' in doc)) return undefined;
  const schema = (doc as { schema: unknown }).schema;
  return typeof schema === 'string' && schema !== expected ? schema : undefined;
}

function fail(code: VerifyCode, path: string, message: string): VerifyFailure {
  return { ok: false, code, path, message, problems: [{ code, path, message }] };
}

/**
 * A check with particulars, each with the code of its own rule (a schema error's keyword): the
 * failure's message is `label: the first three (and N more)`.
 */
function failMany(code: VerifyCode, label: string, problems: readonly Problem[]): VerifyFailure {
  return {
    ok: false,
    code,
    path: problems[0]?.path ?? '',
    message: `${label}: ${describeProblems(problems)}`,
    problems,
  };
}
