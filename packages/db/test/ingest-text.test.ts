import { canonicalJson } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { count, IngestError, ingest } from '../src/index.js';
import { NOW, signPayload, suiteRun, tempDb } from './fixtures.js';

/** A validly signed result whose CPU model is `model`: the signature is fine, the text is not. */
function signedWithCpuModel(model: string): string {
  const r = suiteRun();
  r.environment.client.cpu.model = model;
  return signPayload(canonicalJson(r));
}

describe('ingest refuses free text the site could not show safely', () => {
  const FIELD = '/environment/client/cpu/model';
  it.each([
    [
      'a NUL',
      'Intel(R) Xeon(R)\u0000 CPU',
      'contains a control character (U+0000) at character 16; remove it',
    ],
    [
      'a BEL',
      'Intel(R) Xeon(R) CPU\u0007',
      'contains a control character (U+0007) at character 20; remove it',
    ],
    [
      'an unpaired right-to-left override',
      'AMD EPYC \u202e7763 64-Core',
      'contains a bidirectional control (U+202E RIGHT-TO-LEFT OVERRIDE) at character 9; remove it',
    ],
    [
      'a 1 MB string',
      `AMD EPYC ${'7'.repeat(1 << 20)}`,
      "is 1048585 characters long, over this field's limit of 200; shorten it",
    ],
  ])('%s in the CPU model: INVALID_RESULT naming the field and the fix, nothing stored', (_, model, what) => {
    const db = tempDb();
    ingest(db, signPayload(canonicalJson(suiteRun())), { now: NOW }); // one good result already there
    const before = count(db);
    let error: unknown;
    try {
      ingest(db, signedWithCpuModel(model), { now: NOW });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IngestError);
    const e = error as IngestError;
    expect({ code: e.code, status: e.status, message: e.message }).toEqual({
      code: 'INVALID_RESULT',
      status: 422,
      message: `invalid result: ${FIELD}: ${what}`,
    });
    expect(count(db)).toEqual(before);
  });
});
