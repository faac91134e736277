import { readFileSync } from 'node:fs';
import { canonicalJson, type ImportedV1 } from '@redis-benchdb/result';
import { LOOKALIKE_CPU_MODELS, LOOKALIKE_VERSIONS } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import { type BenchDb, count, IngestError, ingest, ingestImported } from '../src/index.js';
import { handSignedBody, NOW, signPayload, suiteRun, tempDb, variant } from './fixtures.js';

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

// Issue 39 item 3: text that names a machine kind or a version, in one normal form (result identity-text.ts).
describe('ingest refuses lookalike names of machine kinds and versions (IDENTITY_TEXT)', () => {
  const refusal = (text: string | ((db: BenchDb) => unknown)) => {
    const db = tempDb();
    ingest(db, handSignedBody(suiteRun()), { now: NOW });
    const before = count(db);
    let error: unknown;
    try {
      if (typeof text === 'string') ingest(db, text, { now: NOW });
      else text(db);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IngestError);
    expect(count(db)).toEqual(before);
    return error as IngestError;
  };

  it.each(LOOKALIKE_CPU_MODELS)(
    'a CPU model with %s, validly signed, is refused naming the field',
    (_, model, what) => {
      const r = variant(1);
      r.environment.client.cpu.model = model;
      const e = refusal(handSignedBody(r));
      expect({ code: e.code, status: e.status }).toEqual({ code: 'IDENTITY_TEXT', status: 422 });
      expect(e.message).toContain(
        `refused: lookalike or invisible characters in text that names a machine kind or a version: /environment/client/cpu/model ${JSON.stringify(model)}: ${what}`,
      );
    },
  );

  it.each(LOOKALIKE_VERSIONS)('a server version with %s is refused', (_, version, what) => {
    const r = variant(1);
    r.environment.server.version = version;
    const e = refusal(handSignedBody(r));
    expect(e.code).toBe('IDENTITY_TEXT');
    expect(e.message).toContain(`/environment/server/version ${JSON.stringify(version)}: ${what}`);
  });

  it('an imported result naming a lookalike CPU model is refused as well', () => {
    const file = new URL('../../../data/imported/redis-io-benchmarks-xeon-e5520-p16.json', import.meta.url);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ImportedV1;
    doc.machine.cpuModel = `${doc.machine.cpuModel}\u200b`;
    const e = refusal((db) => ingestImported(db, JSON.stringify(doc)));
    expect(e.code).toBe('IDENTITY_TEXT');
    expect(e.message).toContain('/machine/cpuModel');
  });
});
