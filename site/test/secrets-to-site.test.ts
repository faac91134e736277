import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildSite, runNode } from './build.js';

// Issue 40 item 2: what a user typed that is secret or names them stays off the published result.
// Two servers launched from under a home folder with a masterauth variant, and a server reached by a
// socket under the home folder: the password, the home folder and the socket path are in none of
// the signed files, the database, the built pages and the open data.
const BIN = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));
const SECRET = 'Hunter2-secret';
let dir: string;
let home: string;
let socket: string;
let server: ChildProcess;

/** The redis-server on PATH, as the CLI finds it. */
function redisServerPath(): string {
  for (const d of (process.env.PATH ?? '').split(':'))
    if (existsSync(join(d, 'redis-server'))) return join(d, 'redis-server');
  throw new Error('redis-server is not on PATH');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbdb-secrets-'));
  home = join(dir, 'home', 'alice');
  for (const b of ['redis-a', 'redis-b']) {
    mkdirSync(join(home, b), { recursive: true });
    copyFileSync(redisServerPath(), join(home, b, 'redis-server'));
  }
  mkdirSync(join(home, 'run'));
  mkdirSync(join(dir, 'out'));
  socket = join(home, 'run', 'redis.sock');
  server = spawn(
    'redis-server',
    ['--port', '0', '--unixsocket', socket, '--save', '', '--appendonly', 'no', '--dir', join(home, 'run')],
    { stdio: 'ignore' },
  );
  // Ready once the socket is there: the CLI says plainly if it does not answer.
  await new Promise<void>((resolve, reject) => {
    const look = () =>
      existsSync(socket)
        ? resolve()
        : server.exitCode !== null
          ? reject(new Error('redis-server ended'))
          : setTimeout(look, 20);
    look();
  });
});

afterAll(() => {
  server?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function benchdb(args: string[]) {
  const env = {
    ...process.env,
    HOME: home,
    REDIS_BENCHDB_DB: join(dir, 'benchdb.sqlite'),
    REDIS_BENCHDB_CONFIG_DIR: join(dir, 'config'),
    REDIS_BENCHDB_SERVER: '',
  };
  return runNode([BIN, ...args], env);
}

/** A short GET cell: what it measures does not matter here, only what it publishes. */
const SHORT = ['-t', 'get', '-n', '2000', '-c', '2'];

/** Every file under `root` whose bytes hold any of `needles`, with the needle. */
function holding(root: string, needles: string[]): string[] {
  const found: string[] = [];
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const file = join(e.parentPath, e.name);
    const bytes = readFileSync(file);
    for (const n of needles) if (bytes.includes(n)) found.push(`${file}: ${n}`);
  }
  return found;
}

it('a masterauth variant, a home path and a socket path reach no signed file, database, page or open data', async () => {
  const group = await benchdb([
    'run',
    '--server-bin',
    join(home, 'redis-a', 'redis-server'),
    '--server-bin',
    join(home, 'redis-b', 'redis-server'),
    '--server-config-variant',
    `masterauth ${SECRET}`,
    ...SHORT,
    '--trials',
    '1',
    '--out',
    join(dir, 'out', 'group.json'),
  ]);
  expect(group.status, group.stderr).toBe(0);
  expect(group.stderr).toMatch(/kept out of the published result: .*the value of masterauth/);
  expect(group.stdout + group.stderr).toMatch(
    /redis-server [\d.]+ \(~\/redis-a\/redis-server\) · masterauth <redacted>/,
  );

  const single = await benchdb(['run', '-s', socket, ...SHORT, '--out', join(dir, 'out', 'single.json')]);
  expect(single.status, single.stderr).toBe(0);
  expect(single.stderr).toContain('kept out of the published result: your home folder (shown as ~)');
  const id = /stored in .* as ([0-9a-f]{64})/.exec(single.stderr)![1]!;

  const site = join(dir, 'site');
  await buildSite(join(dir, 'benchdb.sqlite'), site);
  const parts = readdirSync(join(site, 'data')).filter((f) => /^results-\d{4}-\d{2}\.jsonl$/.test(f));
  expect(parts.length).toBeGreaterThan(0);
  const needles = [SECRET, home, socket];
  expect(holding(join(dir, 'out'), needles)).toEqual([]);
  expect(holding(join(dir, 'results'), needles)).toEqual([]);
  for (const f of readdirSync(dir).filter((f) => f.startsWith('benchdb.sqlite')))
    expect(holding(dir, needles).filter((h) => h.startsWith(join(dir, f)))).toEqual([]);
  expect(holding(site, needles)).toEqual([]);
  // What is shown instead: the socket from ~, and Reproduce with a placeholder.
  const page = readFileSync(join(site, 'results', id, 'index.html'), 'utf8');
  expect(page).toContain('-s SOCKET');
  expect(parts.map((f) => readFileSync(join(site, 'data', f), 'utf8')).join('')).toContain(
    '~/run/redis.sock',
  );
  // Issue 40 item 9: no CPU vulnerability list is published (packages/cli/README.md says why).
  const signed = readFileSync(join(dir, 'out', 'single.json'), 'utf8');
  expect(signed).not.toMatch(/spectre_v2|spec_store_bypass|Vulnerable/);
});
