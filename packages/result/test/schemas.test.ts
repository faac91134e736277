import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  MAX_VALIDATION_ERRORS,
  type ResultV1,
  validateEnvelope,
  validateImported,
  validateResult,
} from '../src/index.js';
import { lastValidationWork } from '../src/schema.js';

const ROOT = new URL('../../../', import.meta.url);
const examples = (dir: string) => new URL(`schemas/examples/${dir}/`, ROOT);
const readJson = (url: URL): unknown => JSON.parse(readFileSync(url, 'utf8'));
const jsonFiles = (dir: string) =>
  readdirSync(examples(dir))
    .filter((f) => f.endsWith('.json') && f !== 'EXPECTED.json')
    .sort();

/** Choose the schema by the document's own `schema` field, as the ingest does. */
function validate(doc: unknown) {
  const kind = (doc as { schema?: unknown }).schema;
  if (typeof kind === 'string' && kind.startsWith('redis-benchdb/envelope.')) return validateEnvelope(doc);
  if (typeof kind === 'string' && kind.startsWith('redis-benchdb/imported.')) return validateImported(doc);
  return validateResult(doc);
}

describe('valid examples', () => {
  const files = jsonFiles('valid');
  it('has result documents and an envelope', () => {
    const kinds = files.map((f) => (readJson(new URL(f, examples('valid'))) as { schema: string }).schema);
    expect(kinds.filter((k) => k === 'redis-benchdb/result.v1').length).toBeGreaterThanOrEqual(2);
    expect(kinds).toContain('redis-benchdb/envelope.v1');
    expect(kinds).toContain('redis-benchdb/imported.v1');
  });
  it.each(files)('%s validates', (file) => {
    expect(validate(readJson(new URL(file, examples('valid'))))).toEqual({ ok: true });
  });
});

describe('invalid examples', () => {
  const expected = readJson(new URL('EXPECTED.json', examples('invalid'))) as Record<string, string>;
  const files = jsonFiles('invalid');

  it('EXPECTED.json lists every invalid file, and only those', () => {
    expect(Object.keys(expected).sort()).toEqual(files);
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  it.each(files)('%s is rejected at the expected path, and only there', (file) => {
    const outcome = validate(readJson(new URL(file, examples('invalid'))));
    if (outcome.ok) throw new Error(`${file} validated`);
    const path = expected[file]!;
    expect(outcome.errors.map((e) => e.path)).toContain(path);
    // One defect each: every error is about it.
    for (const e of outcome.errors) {
      expect(e.path).toBe(path);
      expect(e.message.startsWith(`${path}: `)).toBe(true);
    }
  });
});

describe('validation messages', () => {
  const minimal = () =>
    readJson(new URL('minimal.json', examples('valid'))) as ResultV1 & Record<string, unknown>;

  it('reads "<path>: <what is wrong>", coded by the rule broken', () => {
    const doc = minimal();
    (doc.runner as { version: unknown }).version = 1;
    expect(validateResult(doc)).toEqual({
      ok: false,
      errors: [{ code: 'TYPE', path: '/runner/version', message: '/runner/version: must be string' }],
    });
  });

  it('names the document itself when it is not an object', () => {
    const outcome = validateResult([]);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok)
      expect(outcome.errors[0]).toEqual({ code: 'TYPE', path: '', message: '(document): must be object' });
  });

  it(`reports at most ${MAX_VALIDATION_ERRORS} errors`, () => {
    const doc = minimal();
    for (const k of Object.keys(doc)) if (k !== 'schema') doc[k] = 'x';
    for (let i = 0; i < 30; i++) doc[`extra${i}`] = i;
    const outcome = validateResult(doc);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.errors).toHaveLength(MAX_VALIDATION_ERRORS);
  });

  it('lists the errors of 1,000 empty cells (a 3 KB body) from a bounded amount of ajv work', () => {
    const doc = minimal();
    doc.cells = Array.from({ length: 1000 }, () => ({}) as ResultV1['cells'][number]);
    const outcome = validateResult(doc);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.errors[0]).toEqual({
      code: 'MAX_ITEMS',
      path: '/cells',
      message: '/cells: must NOT have more than 256 items',
    });
    expect(outcome.errors[1]?.message).toBe('/cells/0/label: is required but missing');
    expect(outcome.errors).toHaveLength(MAX_VALIDATION_ERRORS);
    // Every cell validated with every error collected made ~22,000 errors and took seconds.
    expect(lastValidationWork.cut).toBe(true);
    expect(lastValidationWork.ajvErrors).toBeLessThan(500);
  });

  it('still names an error that lies past the arrays cut for the detailed list', () => {
    const doc = minimal();
    const cell = doc.cells[0]!;
    doc.cells = Array.from({ length: 40 }, (_, i) => ({ ...cell, label: `cell ${i}` }));
    (doc.cells[30] as { completed: unknown }).completed = -1;
    const outcome = validateResult(doc);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok)
      expect(outcome.errors).toEqual([
        { code: 'MINIMUM', path: '/cells/30/completed', message: '/cells/30/completed: must be >= 0' },
      ]);
  });

  it('takes as many trials as --trials allows (1000), and no more', () => {
    const doc = minimal();
    const cell = doc.cells[0]!;
    const trial = cell.trials[0]!;
    cell.trials = Array.from({ length: 1000 }, () => ({ ...trial }));
    cell.trialCount = 1000;
    expect(validateResult(doc)).toEqual({ ok: true });
    cell.trials.push({ ...trial });
    cell.trialCount = 1001;
    const outcome = validateResult(doc);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok)
      expect(outcome.errors).toEqual([
        {
          code: 'MAX_ITEMS',
          path: '/cells/0/trials',
          message: '/cells/0/trials: must NOT have more than 1000 items',
        },
      ]);
  });

  it('escapes property names in paths (RFC 6901)', () => {
    const doc = minimal();
    doc['a/b~c'] = 1;
    const outcome = validateResult(doc);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.errors[0]!.path).toBe('/a~1b~0c');
  });

  it('rejects a result given as an envelope and the reverse: UNSUPPORTED_SCHEMA at /schema', () => {
    const doc = minimal();
    for (const outcome of [
      validateEnvelope(doc),
      validateResult({ ...doc, schema: 'redis-benchdb/envelope.v1' }),
    ]) {
      expect(outcome.ok).toBe(false);
      if (!outcome.ok)
        expect(outcome.errors.map((e) => [e.code, e.path])).toEqual([['UNSUPPORTED_SCHEMA', '/schema']]);
    }
  });
});
