// The layout rules of the architecture issue, held so that they do not erode one commit at a time:
// no source file over 400 lines, and no import circle between files, inside a package or across
// packages (a package's entry point counts as the files it re-exports).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGES = join(ROOT, 'packages');
const MAX_LINES = 400;

/** Files generated from the schemas (scripts/gen-result-types.mjs) are not written by hand. */
const isGenerated = (file: string) => file.includes('/generated/');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const packageDirs = readdirSync(PACKAGES).filter((p) => statSync(join(PACKAGES, p, 'src')).isDirectory());
const files = packageDirs.flatMap((p) => sources(join(PACKAGES, p, 'src')));

/** `@redis-benchdb/engine/options` → packages/engine/src/options.ts, by each package's exports. */
function packageEntry(spec: string): string | null {
  const m = /^@redis-benchdb\/([^/]+)(\/.+)?$/.exec(spec);
  if (!m) return null;
  const dir = packageDirs.find((p) => {
    const pkg = JSON.parse(readFileSync(join(PACKAGES, p, 'package.json'), 'utf8')) as { name: string };
    return pkg.name === `@redis-benchdb/${m[1]}`;
  });
  if (!dir) return null;
  return join(PACKAGES, dir, 'src', `${m[2] ? m[2].slice(1) : 'index'}.ts`);
}

/** Every module a file imports or re-exports, statically or by `import()`, resolved to a source file. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g),
    ...text.matchAll(/import\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1]!);
  return specs.flatMap((spec) => {
    if (spec.startsWith('.')) return [resolve(dirname(file), spec.replace(/\.js$/, '.ts'))];
    const entry = packageEntry(spec);
    return entry ? [entry] : [];
  });
}

/** The circles of the graph, each once, as paths from the repository root. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found.map((c) => c.map((f) => relative(ROOT, f)));
}

describe('the source layout', () => {
  it(`has no hand-written file in packages/*/src over ${MAX_LINES} lines`, () => {
    const long = files
      .filter((f) => !isGenerated(f))
      .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((x) => x.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('has no import circle between files, within or across packages', () => {
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    expect(circles(graph)).toEqual([]);
  });

  it('finds a circle when there is one (the check itself works)', () => {
    const a = join(ROOT, 'a.ts');
    const b = join(ROOT, 'b.ts');
    expect(
      circles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts', 'a.ts']]);
    // And it resolves what real files import: engine's index re-exports its options.
    expect(importsOf(join(PACKAGES, 'cli/src/commands/run.ts'))).toContain(
      join(PACKAGES, 'engine/src/options.ts'),
    );
  });
});
