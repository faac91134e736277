import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  cleanNullableText,
  cleanText,
  findForbiddenChar,
  identityTextProblem,
  type ResultV1,
  TEXT_MAX,
  validateImported,
  validateResult,
} from '../src/index.js';

const ROOT = new URL('../../../', import.meta.url);
const readJson = (path: string): unknown => JSON.parse(readFileSync(new URL(path, ROOT), 'utf8'));
const minimal = () => readJson('schemas/examples/valid/minimal.json') as ResultV1;

describe('cleanText', () => {
  it('removes control and bidi characters, collapses white space and trims', () => {
    expect(cleanText('  Intel(R)\u0000 Xeon(R)\u0007\u202e CPU\t\n E5-2680\u0085v4\u2069 ', 200)).toBe(
      'Intel(R) Xeon(R) CPU E5-2680 v4',
    );
    expect(cleanText('a\u009bb\u007fc\u2028d', 200)).toBe('abc d');
  });
  it('cuts at max code points, ending in an ellipsis, never splitting a surrogate pair', () => {
    expect(cleanText('AMD EPYC 7763 64-Core Processor', 10)).toBe('AMD EPY...');
    expect(cleanText('😀'.repeat(10), 4)).toBe('😀...');
    expect(Array.from(cleanText('x'.repeat(1_000_000), TEXT_MAX.cpuModel))).toHaveLength(TEXT_MAX.cpuModel);
    // A cut CPU model is still in the normal form the runner signs (U+2026 would not be: NFKC makes it ...).
    expect(identityTextProblem(cleanText('AMD EPYC 7763 64-Core Processor', 10))).toBeNull();
  });
  it('leaves ordinary text alone, including non-Latin scripts and right-to-left letters', () => {
    for (const s of ['redis 7.0.15', 'Apple M2 Pro', 'Kunpeng-920 鲲鹏', 'שרת redis'])
      expect(cleanText(s, 200)).toBe(s);
  });
  it('cleanNullableText keeps null, and turns text that cleans to nothing into null', () => {
    expect(cleanNullableText(null, 10)).toBeNull();
    expect(cleanNullableText('\u0000 \u202e', 10)).toBeNull();
    expect(cleanNullableText(' x ', 10)).toBe('x');
  });
  it('what it returns always passes the schema', () => {
    const doc = minimal();
    doc.environment.client.cpu.model = cleanText(`\u202eIntel\u0007${'x'.repeat(5000)}`, TEXT_MAX.cpuModel);
    expect(validateResult(doc)).toEqual({ ok: true });
  });
});

describe('free text in the schemas', () => {
  const SINGLE = '^[^\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069]*$';
  const MULTI =
    '^[^\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069]*$';

  /** Every string that is not an enum, const, format or fixed pattern: free text. */
  function freeText(schema: unknown): { path: string; node: Record<string, unknown> }[] {
    const out: { path: string; node: Record<string, unknown> }[] = [];
    const visit = (n: unknown, path: string) => {
      if (Array.isArray(n)) {
        for (const [i, x] of n.entries()) visit(x, `${path}/${i}`);
        return;
      }
      if (n === null || typeof n !== 'object') return;
      const o = n as Record<string, unknown>;
      const types = ([] as unknown[]).concat(o.type);
      const fixed = typeof o.pattern === 'string' && !o.pattern.startsWith('^[^\\u0000-');
      if (types.includes('string') && !o.enum && !o.const && !o.format && !fixed && !path.includes('/then/'))
        out.push({ path, node: o });
      for (const [k, v] of Object.entries(o)) visit(v, `${path}/${k}`);
    };
    visit(schema, '');
    return out;
  }

  for (const file of ['result.v1.schema.json', 'imported.v1.schema.json']) {
    it(`${file}: every free-text field has a maxLength and refuses control and bidi characters`, () => {
      const fields = freeText(readJson(`schemas/${file}`));
      expect(fields.length).toBeGreaterThan(10);
      for (const { path, node } of fields) {
        expect(node.maxLength, path).toBeTypeOf('number');
        expect([SINGLE, MULTI], path).toContain(node.pattern);
      }
    });
  }

  it('the patterns refuse exactly what findForbiddenChar finds', () => {
    const single = new RegExp(SINGLE, 'u');
    const multi = new RegExp(MULTI, 'u');
    for (let cp = 0; cp < 0x3000; cp++) {
      const ch = String.fromCodePoint(cp);
      expect(single.test(ch), `U+${cp.toString(16)}`).toBe(findForbiddenChar(ch) === undefined);
      expect(multi.test(ch), `U+${cp.toString(16)}`).toBe(findForbiddenChar(ch, true) === undefined);
    }
  });
});

describe('validation messages for free text', () => {
  const cases: [string, string, string][] = [
    ['a NUL', 'Intel\u0000 Xeon', 'contains a control character (U+0000) at character 5; remove it'],
    [
      'a BEL',
      'Intel(R) Xeon(R)\u0007 CPU',
      'contains a control character (U+0007) at character 16; remove it',
    ],
    [
      'a right-to-left override',
      'AMD EPYC \u202e7763',
      'contains a bidirectional control (U+202E RIGHT-TO-LEFT OVERRIDE) at character 9; remove it',
    ],
    [
      'a 1 MB string',
      'x'.repeat(1 << 20),
      "is 1048576 characters long, over this field's limit of 200; shorten it",
    ],
  ];
  it.each(cases)('name the field and say what is wrong with %s', (_, model, text) => {
    const doc = minimal();
    doc.environment.client.cpu.model = model;
    const path = '/environment/client/cpu/model';
    // Which rule it broke: the field's length, or its pattern of allowed characters.
    const code = model.length > 200 ? 'MAX_LENGTH' : 'PATTERN';
    expect(validateResult(doc)).toEqual({ ok: false, errors: [{ code, path, message: `${path}: ${text}` }] });
  });
  it('a multi-line field accepts newlines and tabs but not a carriage return', () => {
    const doc = readJson('schemas/examples/valid/imported-published-document.json') as { notes: string };
    doc.notes = 'line one\n\tline two';
    expect(validateImported(doc)).toEqual({ ok: true });
    doc.notes = 'line one\r\nline two';
    const outcome = validateImported(doc);
    expect(outcome.ok || outcome.errors.map((e) => e.message)).toEqual([
      '/notes: contains a control character (U+000D) at character 8; remove it',
    ]);
  });
});
