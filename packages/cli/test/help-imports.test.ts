import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from './helpers/cli.js';

// `--help` loads every command's definition (the program's help lists them all), so a definition
// that imports the engine's entry makes help load ioredis and the load generator: 0.49 s of CPU
// where 0.11 s did before. The definitions take their defaults from @redis-benchdb/engine/options;
// what runs a command is imported by its run(). This holds that: a module resolve hook lists every
// module `--help` loads.
// The hook runs on a thread of its own: it writes to fd 2 at once, since a stream's write from there is
// lost when a short command exits before it is flushed (as Node 22 and later do with --help).
const HOOK = `import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  writeSync(2, 'loaded ' + r.url + '\\n');
  return r;
}
`;

let dir: string;
let register: string;
beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(path.join(tmpdir(), 'rbdb-help-imports-'));
  const hook = path.join(dir, 'hook.mjs');
  register = path.join(dir, 'register.mjs');
  await writeFile(hook, HOOK);
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`,
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Every module URL `node bin.js ...args` loads, and what it printed. */
async function loaded(args: string[]): Promise<{ urls: string[]; stdout: string }> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [
    '--import',
    register,
    BIN,
    ...args,
  ]);
  const urls = stderr
    .split('\n')
    .filter((l) => l.startsWith('loaded '))
    .map((l) => l.slice('loaded '.length));
  return { urls, stdout };
}

const heavy = (urls: string[]) =>
  urls.filter((u) => /\/engine\/dist\/index\.js$|\/probe\/dist\/|\/ioredis\/|\/systeminformation\//.test(u));

describe('--help loads no engine, probe or ioredis', () => {
  it.each([[['--help']], [['run', '--help']], [['sysinfo', '--help']], [['cleanup', '--help']]])(
    '%j',
    async (args) => {
      const { urls, stdout } = await loaded(args);
      // The hook saw the CLI load (not a vacuous pass), and the defaults still reach the help.
      expect(urls.some((u) => u.endsWith('/cli/dist/bin.js'))).toBe(true);
      expect(urls.some((u) => u.endsWith('/engine/dist/options.js'))).toBe(true);
      expect(heavy(urls)).toEqual([]);
      if (args[0] === 'run') expect(stdout).toContain('parallel connections (default: "50")');
    },
  );

  it('a command that runs still loads the engine (the hook sees it)', async () => {
    const { urls } = await loaded(['run', '-t', 'nosuch', '-p', '1']).catch((err) => ({
      urls: String(err.stderr)
        .split('\n')
        .filter((l: string) => l.startsWith('loaded '))
        .map((l: string) => l.slice('loaded '.length)),
    }));
    expect(urls.some((u) => u.endsWith('/engine/dist/index.js'))).toBe(true);
  });
});
