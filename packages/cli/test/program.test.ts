import { defineCommand, flag } from '@redis-benchdb/command';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CommandList, runMain } from '../src/command/main.js';
import { int } from '../src/options/numbers.js';
import { COMMANDS, PROGRAM } from '../src/program.js';

const exitCodeBefore = process.exitCode;
afterEach(() => {
  process.exitCode = exitCodeBefore;
  vi.restoreAllMocks();
});

/** Two small commands, counting their loads and recording what run() got. */
function fakeList() {
  const loaded: string[] = [];
  const ran: unknown[] = [];
  const make = (name: string) =>
    defineCommand({
      name,
      description: `the ${name} command`,
      argument: { usage: '[word...]', help: 'words' },
      options: {
        count: int('-n, --count <n>', 'how many', 'count (-n)', { default: 3 }),
        loud: flag('--loud', 'say it loudly'),
        store: flag('--no-store', 'keep nothing'),
      },
      async run(flags, words) {
        ran.push({ name, flags, words });
        return 7;
      },
    });
  const load = async (name: string) => {
    loaded.push(name);
    return make(name);
  };
  const list: CommandList = { alpha: () => load('alpha'), beta: () => load('beta') };
  return { list, loaded, ran };
}

describe('the command list', () => {
  it('each entry of program.ts loads the command of that name', async () => {
    for (const [name, load] of Object.entries(COMMANDS)) expect((await load()).name).toBe(name);
  });

  it('loads only the command named, and gives run() the typed flags it was given', async () => {
    const { list, loaded, ran } = fakeList();
    const code = await runMain(PROGRAM, list, ['node', 'x', 'beta', '-n', '1_000', '--loud', 'a', 'b']);
    expect(code).toBe(7);
    expect(loaded).toEqual(['beta']);
    // No --no-store and no default: a flag not typed is left out, its library default applies.
    expect(ran).toEqual([{ name: 'beta', flags: { count: 1000, loud: true }, words: ['a', 'b'] }]);
  });

  it('--no-store gives false; a bad value is a usage error naming the flag, exit 2', async () => {
    const { list, ran } = fakeList();
    expect(await runMain(PROGRAM, list, ['node', 'x', 'alpha', '--no-store'])).toBe(7);
    expect(ran).toEqual([{ name: 'alpha', flags: { store: false }, words: [] }]);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await runMain(PROGRAM, list, ['node', 'x', 'alpha', '-n', 'many'])).toBe(2);
    expect(String(stderr.mock.calls[0]?.[0])).toBe(
      'error: invalid count (-n): "many" (expected a whole number >= 1)\n',
    );
  });

  it('the program help and an unknown command load every command', async () => {
    const { list, loaded } = fakeList();
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await runMain(PROGRAM, list, ['node', 'x', 'alhpa'])).toBe(2);
    expect(loaded.sort()).toEqual(['alpha', 'beta']);
    expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toContain('(Did you mean alpha?)');
  });

  it('a bad value is checked when the command runs, so --help still shows help', async () => {
    const { list, ran } = fakeList();
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    expect(await runMain(PROGRAM, list, ['node', 'x', 'alpha', '-n', 'many', '--help'])).toBe(0);
    expect(ran).toEqual([]);
    expect(String(stdout.mock.calls[0]?.[0])).toContain('-n, --count <n>  how many (default: "3")');
  });
});
