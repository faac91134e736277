import { readdirSync, readFileSync } from 'node:fs';
import { LOOKALIKE_CPU_MODELS, LOOKALIKE_VERSIONS } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import {
  cleanText,
  type EnvelopeV1,
  generateSigningKey,
  IdentityTextError,
  type ImportedV1,
  identityTextProblem,
  identityTextProblems,
  importedIdentityTextProblems,
  normalizeIdentityText,
  type ResultV1,
  signResult,
} from '../src/index.js';

// Issue 39 item 3: one normal form for text that names a machine kind or a version (identity-text.ts).

const ROOT = new URL('../../../', import.meta.url);
const example = () =>
  JSON.parse(readFileSync(new URL('schemas/examples/valid/suite-run.json', ROOT), 'utf8')) as ResultV1;

describe('identityTextProblem', () => {
  it.each(LOOKALIKE_CPU_MODELS)('refuses a CPU model with %s', (_, text, problem) => {
    expect(identityTextProblem(text)).toContain(problem);
  });

  it.each(LOOKALIKE_VERSIONS)('refuses a version with %s', (_, text, problem) => {
    expect(identityTextProblem(text)).toContain(problem);
  });

  it('refuses a whole-script lookalike of an ASCII name by its TR39 skeleton', () => {
    // All Cyrillic, so not mixed: but it reads "EPYC".
    expect(identityTextProblem('ЕРУС')).toBe(
      'reads as the ASCII text "EPYC" (Unicode TR39 skeleton; U+0415 at 0): a lookalike of an ASCII name; write the name in ASCII',
    );
    // An en dash reads as the ASCII hyphen of "E5-2680".
    expect(identityTextProblem('Xeon E5–2680')).toContain('reads as the ASCII text');
  });

  it('takes genuine names, ASCII or not', () => {
    for (const text of [
      'AMD EPYC',
      'Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz',
      'AMD EPYC 7763 64-Core Processor',
      '7.4.1',
      '7.9.224',
      'jemalloc-5.3.0',
      'Linux 6.18.44-fc-v669 x86_64',
      'Эльбрус-8С', // one script, and it does not read as ASCII
      'Intel® Core i7', // ® is no letter of any script
      'Xeon 第8世代', // Han beside Latin, as TR39's highly restrictive level allows
      'Café 1',
    ])
      expect(identityTextProblem(text), text).toBeNull();
  });

  it('normalizeIdentityText fixes what is a matter of encoding, and cleanText (the probes) applies it', () => {
    expect(normalizeIdentityText('\ufeffＡＭＤ\u00a0EP\u00adYC\u200b')).toBe('AMD EPYC');
    expect(cleanText('AMD\u00a0EP\u200bYC\u2009 7763', 200)).toBe('AMD EPYC 7763');
    // Which script was meant cannot be told: a mixed-script name is left for the check to refuse.
    expect(identityTextProblem(normalizeIdentityText('AMD ЕРYC'))).toContain('Cyrillic');
  });
});

describe('identityTextProblems over a document', () => {
  it('names each field by its JSON Pointer, and a cluster node version too', () => {
    const r = example();
    r.environment.client.cpu.model = 'AMD ЕРYC';
    r.environment.server.version = '7.4.1\u200b';
    r.environment.client.virtualization.hypervisor = 'ＫＶＭ';
    expect(identityTextProblems(r).map((p) => p.path)).toEqual([
      '/environment/client/cpu/model',
      '/environment/client/virtualization/hypervisor',
      '/environment/server/version',
    ]);
  });

  it('signResult refuses to sign a lookalike name: IdentityTextError with the code, field and problem', () => {
    const r = example();
    r.environment.client.cpu.model = 'AMD ЕРYC';
    let error: unknown;
    try {
      signResult(r, generateSigningKey().privateKeyPem);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IdentityTextError);
    const e = error as IdentityTextError;
    expect(e.code).toBe('IDENTITY_TEXT');
    expect(e.message).toBe(
      'lookalike or invisible characters in identity text: /environment/client/cpu/model "AMD ЕРYC": mixes Latin letters with Cyrillic ones (U+0415 at 4), which makes a lookalike of another name: write it in one script, as the machine or server reports it',
    );
  });

  it("every file of data/ is in the normal form: the project's results and the imported ones", () => {
    let checked = 0;
    const results = new URL('data/results/', ROOT);
    for (const dir of readdirSync(results, { withFileTypes: true })) {
      if (!dir.isDirectory() || dir.name === 'keys') continue;
      for (const f of readdirSync(new URL(`${dir.name}/`, results))) {
        if (!f.endsWith('.json') || f === 'manifest.json') continue;
        const env = JSON.parse(readFileSync(new URL(`${dir.name}/${f}`, results), 'utf8')) as EnvelopeV1;
        expect(identityTextProblems(JSON.parse(env.payload) as ResultV1), f).toEqual([]);
        checked++;
      }
    }
    const imported = new URL('data/imported/', ROOT);
    for (const f of readdirSync(imported)) {
      const doc = JSON.parse(readFileSync(new URL(f, imported), 'utf8')) as ImportedV1;
      expect(importedIdentityTextProblems(doc), f).toEqual([]);
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
  });
});
