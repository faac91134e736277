import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, CLI_DIR } from './helpers/cli.js';

// What `--help` prints is the CLI's manual: every command's text is stored under snapshots/help/
// and must come out byte for byte (as Observable Plot's snapshot tests do with SVG). A mismatch
// writes NAME-changed.txt beside the stored file: look at the difference, and when the new text is
// meant, move it over the stored one. A missing snapshot is written from the current output.
const SNAPSHOTS = path.join(CLI_DIR, 'test', 'snapshots', 'help');
const COMMANDS = [
  'run',
  'sysinfo',
  'cleanup',
  'import',
  'export',
  'submit',
  'retract',
  'keygen',
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

function matchSnapshot(name: string, actual: string): void {
  const stored = path.join(SNAPSHOTS, `${name}.txt`);
  const changed = path.join(SNAPSHOTS, `${name}-changed.txt`);
  rmSync(changed, { force: true });
  if (!existsSync(stored)) {
    mkdirSync(SNAPSHOTS, { recursive: true });
    writeFileSync(stored, actual);
    return;
  }
  if (readFileSync(stored, 'utf8') === actual) return;
  writeFileSync(changed, actual);
  expect.fail(
    `${name} help differs from ${stored}: see ${changed} (diff ${stored} ${changed}; mv it over the stored file if the change is meant)`,
  );
}

beforeAll(assertBuilt);

describe('--help', () => {
  it('redis-benchdb --help lists every command', async () => {
    const text = await help(['--help']);
    for (const c of COMMANDS) expect(text).toMatch(new RegExp(`^  ${c} `, 'm'));
    matchSnapshot('redis-benchdb', text);
  });

  it.each(COMMANDS)('redis-benchdb %s --help', async (command) => {
    const text = await help([command, '--help']);
    expect(text).toMatch(new RegExp(`^Usage: redis-benchdb ${command} `));
    matchSnapshot(command, text);
  });
});
