// The docs say what the code does: every threshold they name is the code's constant, every command
// list is the CLI's command table, every warning code is one the schema has, and the README's two
// commands are the ones CI runs. A doc that drifts from the code fails here, not in a reader's hands.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUSY_HOST_OTHER_CPU_FRACTION, CPU_STEAL_FRACTION, UNSTABLE_CV } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { RUN_OPTIONS } from '../../packages/cli/dist/commands/run.js';
import { COMMANDS } from '../../packages/cli/dist/program.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

const DOCS = ['README.md', 'packages/cli/README.md', 'docs/BENCHMARKS.md', 'docs/RESULT-FORMAT.md'];

/**
 * Each figure a doc gives for `code`'s threshold, as a fraction: "`CODE`... more than 5%", "above 5%"
 * or "above 0.05", within the same sentence.
 */
function thresholdsNamed(text: string, code: string): number[] {
  const re = new RegExp(
    `\`${code}\`[^.\\n]{0,160}?(?:more than|above) (?:(\\d+(?:\\.\\d+)?)%|(0\\.\\d+))`,
    'g',
  );
  return [...text.matchAll(re)].map((m) => (m[1] !== undefined ? Number(m[1]) / 100 : Number(m[2])));
}

describe('thresholds named in the docs are the code constants', () => {
  const constants: [string, number][] = [
    ['BUSY_HOST', BUSY_HOST_OTHER_CPU_FRACTION],
    ['CPU_STEAL', CPU_STEAL_FRACTION],
    ['UNSTABLE', UNSTABLE_CV],
  ];
  for (const doc of DOCS)
    it(doc, () => {
      const text = read(doc);
      for (const [code, value] of constants)
        for (const named of thresholdsNamed(text, code))
          expect(named, `${doc}: ${code}`).toBeCloseTo(value, 9);
    });

  it('the README names each of them, so the check above is not empty', () => {
    const text = read('README.md');
    for (const [code] of constants) expect(thresholdsNamed(text, code), code).not.toEqual([]);
  });
});

describe('command lists named in the docs are the CLI command table', () => {
  const commands = Object.keys(COMMANDS).sort();
  for (const doc of ['README.md', 'packages/cli/README.md'])
    it(doc, () => {
      const lists = [...read(doc).matchAll(/^The commands: ([^.]*)\./gm)];
      expect(lists, `${doc} lists the commands in a sentence starting "The commands: "`).toHaveLength(1);
      const named = [...lists[0]![1]!.matchAll(/`([a-z]+)`/g)].map((m) => m[1]).sort();
      expect(named).toEqual(commands);
    });
});

describe("the README's warnings are the schema's", () => {
  it('every code in its list of warnings is one a result can carry', () => {
    const schema = JSON.parse(read('schemas/result.v1.schema.json'));
    const codes: string[] = schema.$defs.Warning.properties.code.enum;
    const listed = [...read('README.md').matchAll(/^- `([A-Z_]+)`:/gm)].map((m) => m[1]);
    expect(listed.length).toBeGreaterThan(0);
    for (const code of listed) expect(codes).toContain(code);
  });
});

describe("the README's two commands", () => {
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('## Two commands'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const commands = block.trim().split('\n');

  it('are two, each starting with the install step, and CI runs them as written', () => {
    expect(commands).toHaveLength(2);
    for (const c of commands) expect(c.startsWith('node scripts/install.mjs && npx -y pnpm@9 ')).toBe(true);
    expect(commands[0]).toContain(' -s redis-benchdb run ');
    const ci = read('.ci/run').split('\n');
    // The test command runs in CI as written; the main job's run is readme-commands.test.ts's.
    expect(ci).toContain(commands[1]);
  });

  it('the flags it documents for a short run are run flags', () => {
    const flags = Object.values(RUN_OPTIONS).map((o) => (o as { flags: string }).flags);
    const short = /add `([^`]+)` after `run`/.exec(readme)?.[1];
    expect(short).toBeDefined();
    for (const word of short!.split(' ').filter((w) => w.startsWith('--')))
      expect(
        flags.some((f) => f.split(/[ ,]+/).includes(word)),
        word,
      ).toBe(true);
  });
});

describe('the tarball the docs name is the one npm pack writes', () => {
  it('redis-benchdb-<version>.tgz is packages/cli/package.json version', () => {
    const { version } = JSON.parse(read('packages/cli/package.json'));
    for (const doc of DOCS)
      for (const m of read(doc).matchAll(/redis-benchdb-(\d+\.\d+\.\d+)\.tgz/g))
        expect(m[1], doc).toBe(version);
  });
});
