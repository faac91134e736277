// The docs say what the code does: every threshold they name is the code's constant, every warning
// code is one the schema has, and the README's two commands are the ones CI runs (the command list
// and the short run's flags are held to the CLI's tables in packages/cli/test/docs.test.ts). A doc that drifts from the code fails here, not in a reader's hands.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG_SETTINGS } from '@redis-benchdb/png';
import { BUSY_HOST_OTHER_CPU_FRACTION, CPU_STEAL_FRACTION, UNSTABLE_CV } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';

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
  const ci = read('.ci/run');

  it('are two, each starting with the install step, and CI runs them as written', () => {
    expect(commands).toHaveLength(2);
    for (const c of commands) expect(c.startsWith('npx -y pnpm@9 install && npx -y pnpm@9 ')).toBe(true);
    expect(commands[0]).toContain(' -s redis-benchdb run ');
    // The test command runs in CI as written; the main job's run is readme-commands.test.ts's on the
    // main Node, and .ci/run's first_command (shortened as the README says) on the others.
    expect(ci.split('\n')).toContain(commands[1]);
    const [install, run, build] = commands[0]!.split(' && ');
    const short = /add `([^`]+)` after `run`/.exec(readme)?.[1];
    expect(ci).toContain(`  ${install}\n`);
    expect(ci).toContain(`"${run} ${short} && ${build}"`);
  });

  it('the Node majors it supports are the ones CI tests, and engines allows the oldest', () => {
    const supported = /^Node (\d+), (\d+) and (\d+) are supported\./m.exec(readme)?.slice(1).map(Number);
    expect(supported, 'README: "Node A, B and C are supported."').toBeDefined();
    const tested = [...ci.matchAll(/^NODE_(?:MAIN|OTHERS)=\(?([^)\n]*)\)?$/gm)]
      .flatMap((m) => m[1]!.split(' '))
      .map((v) => Number(v.split('.')[0]))
      .sort((a, b) => a - b);
    expect(tested).toEqual(supported);
    // engines names the oldest release that runs everything (Astro 7.4 wants 22.23.4): of the oldest major.
    const root = JSON.parse(read('package.json')).engines.node as string;
    expect(root).toMatch(new RegExp(`^>=${Math.min(...supported!)}\\.`));
    expect(readme).toContain(`Needs Node.js ${root.slice(2)} or newer`);
    const cli = JSON.parse(read('packages/cli/package.json')).engines.node as string;
    expect(read('packages/cli/README.md')).toContain(`Needs Node.js ${cli.slice(2)} or newer`);
  });
});

describe("figures the docs give are the code's", () => {
  it("DEPLOY.md's chart PNG widths are PNG_SETTINGS'", () => {
    const m = /\(resvg, (\d+) px wide, (\d+) for Open Graph cards\)/.exec(read('docs/DEPLOY.md'));
    expect(m, 'docs/DEPLOY.md names the PNG widths').not.toBeNull();
    expect(Number(m![1])).toBe(PNG_SETTINGS.chartWidthPx);
    expect(Number(m![2])).toBe(PNG_SETTINGS.cardWidthPx);
  });

  it("the runner's README says every run makes the signing key, as run/signing.ts does", () => {
    const text = read('packages/cli/README.md');
    expect(text).not.toMatch(/first `run[^`]*` makes/);
    expect(text).toContain('every `run` makes one if there is none');
    expect(read('packages/cli/src/run/signing.ts')).toMatch(/if \(!key\) \{\s*key = await createKey\(\)/);
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

describe("the runner's README lists every field a result publishes about the machine", () => {
  const schema = JSON.parse(read('schemas/result.v1.schema.json'));
  const defs = schema.$defs ?? {};
  type Node = { $ref?: string; properties?: Record<string, Node> };
  const resolveRef = (n: Node): Node => (n.$ref ? resolveRef(defs[n.$ref.split('/').at(-1)!]) : n);
  /** Dotted paths of the leaves under `n` (an object with properties is not a leaf; unknown is the reasons). */
  const leaves = (n: Node, prefix: string): string[] =>
    Object.entries(resolveRef(n).properties ?? {}).flatMap(([k, v]) => {
      const path = prefix ? `${prefix}.${k}` : k;
      const r = resolveRef(v);
      return r.properties && k !== 'mitigations' ? leaves(r, path) : [path];
    });

  it('packages/cli/README.md names each of environment.client', () => {
    const client = resolveRef(schema.properties.environment).properties!.client!;
    const fields = leaves(client, '').filter((f) => f !== 'unknown');
    expect(fields.length).toBeGreaterThan(30);
    const readme = read('packages/cli/README.md');
    const missing = fields.filter((f) => !readme.includes(`\`${f}\``));
    expect(missing, 'add each to "What a result publishes about the machine"').toEqual([]);
  });
});
