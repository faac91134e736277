import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from './helpers/cli.js';

// What `--help` prints is the CLI's manual: every command's text is stored under snapshots/help/
// and must come out byte for byte (vitest's file snapshots, as site/test/charts.test.ts keeps its
// SVGs). After an intended change, read the diff vitest prints, then update the stored files with
// `npx vitest run packages/cli/test/help.test.ts -u`. A missing file is written from the output.
const COMMANDS = [
  'run',
  'sysinfo',
  'cleanup',
  'import',
  'export',
  'submit',
  'retract',
  'keygen',
  'revoke',
  'verify',
  'view',
];

async function help(args: string[]): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  // Not a terminal, so commander wraps at its fixed 80 columns whatever the test's terminal is.
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], { env });
  expect(stderr).toBe('');
  return stdout;
}

beforeAll(assertBuilt);

describe('--help', () => {
  it('redis-benchdb --help lists every command', async () => {
    const text = await help(['--help']);
    for (const c of COMMANDS) expect(text).toMatch(new RegExp(`^  ${c} `, 'm'));
    await expect(text).toMatchFileSnapshot('snapshots/help/redis-benchdb.txt');
  });

  it.each(COMMANDS)('redis-benchdb %s --help', async (command) => {
    const text = await help([command, '--help']);
    expect(text).toMatch(new RegExp(`^Usage: redis-benchdb ${command} `));
    await expect(text).toMatchFileSnapshot(`snapshots/help/${command}.txt`);
  });
});
