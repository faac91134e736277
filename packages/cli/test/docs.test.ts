// The CLI's docs name its own tables: the command list in README.md and the runner's README is the
// program's command table, and the flags the README gives for a short run are run flags. Here, beside
// the CLI, they import its source; the rest of the docs' checks are scripts/test/docs.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RUN_OPTIONS } from '../src/commands/run.js';
import { COMMANDS } from '../src/program.js';

const read = (file: string) => readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8');

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

describe("the README's short run", () => {
  it('the flags it documents for a short run are run flags', () => {
    const flags = Object.values(RUN_OPTIONS).map((o) => (o as { flags: string }).flags);
    const short = /add `([^`]+)` after `run`/.exec(read('README.md'))?.[1];
    expect(short).toBeDefined();
    for (const word of short!.split(' ').filter((w) => w.startsWith('--')))
      expect(
        flags.some((f) => f.split(/[ ,]+/).includes(word)),
        word,
      ).toBe(true);
  });
});
