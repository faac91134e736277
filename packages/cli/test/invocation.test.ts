import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliName, pnpmName, shellQuote, signalExitCode } from '../src/invocation.js';
import { addSqlite } from '../src/local-database.js';
import { connectionFlags } from '../src/run/cleanup-hint.js';

const dir = mkdtempSync(path.join(tmpdir(), 'rbdb-invocation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cliName: the hint starts the CLI the way the user did', () => {
  const bin = path.join(dir, 'lib', 'bin.js');
  const onPath = path.join(dir, 'bin');
  const localBin = path.join(dir, 'node_modules', '.bin');
  for (const d of [path.dirname(bin), onPath, localBin]) mkdirSync(d, { recursive: true });
  writeFileSync(bin, '');
  symlinkSync(bin, path.join(onPath, 'redis-benchdb'));
  symlinkSync(bin, path.join(localBin, 'redis-benchdb'));

  it('npx: by its cache path', () => {
    expect(cliName({}, ['node', '/home/u/.npm/_npx/1a2b/node_modules/redis-benchdb/bundle/bin.js'])).toBe(
      'npx redis-benchdb',
    );
  });
  it('the repository script: pnpm -s redis-benchdb', () => {
    expect(
      cliName({ npm_lifecycle_event: 'redis-benchdb', npm_config_user_agent: 'pnpm/9.15.9 node/v20' }, [
        'node',
        bin,
      ]),
    ).toBe('pnpm -s redis-benchdb');
  });
  it('installed on PATH: redis-benchdb', () => {
    expect(cliName({ PATH: onPath }, ['node', bin])).toBe('redis-benchdb');
  });
  it('a local node_modules/.bin is on PATH only under npx', () => {
    expect(cliName({ PATH: localBin, npm_command: 'exec' }, ['node', bin])).toBe('npx redis-benchdb');
    expect(cliName({ PATH: localBin, npm_command: 'run-script' }, ['node', bin])).toBe(
      `${shellQuote(process.execPath)} ${bin}`,
    );
  });
  it('otherwise: node and the script, by absolute path', () => {
    expect(cliName({ PATH: '/nonexistent' }, ['node', bin])).toBe(`${shellQuote(process.execPath)} ${bin}`);
  });
});

describe('cliName under npx: the packages npx fetched, as its cache directory records them', () => {
  /** An npx cache directory as npm 7+ writes it: package.json with the specs, the bin inside. */
  function npxCache(hash: string, deps: Record<string, string>, given: string[]): string {
    const cache = path.join(dir, '.npm', '_npx', hash);
    mkdirSync(path.join(cache, 'node_modules', 'redis-benchdb', 'bundle'), { recursive: true });
    writeFileSync(
      path.join(cache, 'package.json'),
      JSON.stringify({ dependencies: deps, _npx: { packages: given } }),
    );
    return path.join(cache, 'node_modules', 'redis-benchdb', 'bundle', 'bin.js');
  }

  it('the published name: npx redis-benchdb; with better-sqlite3 beside it, both with -p', () => {
    const bin = npxCache('a1', { 'redis-benchdb': '^0.2.0' }, ['redis-benchdb']);
    expect(cliName({}, ['node', bin])).toBe('npx redis-benchdb');
    expect(cliName({}, ['node', bin], ['better-sqlite3'])).toBe(
      'npx -y -p redis-benchdb -p better-sqlite3 redis-benchdb',
    );
  });
  it('a pinned version keeps the words the user gave', () => {
    const bin = npxCache('a2', { 'redis-benchdb': '0.2.0' }, ['redis-benchdb@0.2.0']);
    expect(cliName({}, ['node', bin])).toBe('npx -y -p redis-benchdb@0.2.0 redis-benchdb');
  });
  it('a tarball: by its absolute path, resolved from the cache directory (npx wrote it relative)', () => {
    const tgz = path.join(dir, 'proj', 'redis-benchdb-0.2.0.tgz');
    const rel = path.relative(path.join(dir, '.npm', '_npx', 'a3'), tgz);
    const bin = npxCache('a3', { 'redis-benchdb': `file:${rel}` }, ['./redis-benchdb-0.2.0.tgz']);
    expect(cliName({}, ['node', bin])).toBe(`npx -y -p ${tgz} redis-benchdb`);
    expect(addSqlite('export', { kind: 'npx', packages: [tgz] })).toContain(
      `npx -y -p ${tgz} -p better-sqlite3 redis-benchdb export ...`,
    );
  });
  it('an unreadable cache directory: the published name', () => {
    expect(cliName({}, ['node', path.join(dir, '.npm', '_npx', 'none', 'node_modules', 'x', 'bin.js')])).toBe(
      'npx redis-benchdb',
    );
  });
});

describe('pnpmName: pnpm as the user can call it', () => {
  it("pnpm when it is installed; npx -y pnpm@9 when it ran from npx's cache", () => {
    expect(
      pnpmName({
        npm_execpath: '/usr/lib/node_modules/pnpm/bin/pnpm.cjs',
        npm_config_user_agent: 'pnpm/9.15.9 npm/? node/v20',
      }),
    ).toBe('pnpm');
    expect(
      pnpmName({
        npm_execpath: '/home/u/.npm/_npx/9f/node_modules/pnpm/bin/pnpm.cjs',
        npm_config_user_agent: 'pnpm/9.15.9 npm/? node/v20',
      }),
    ).toBe('npx -y pnpm@9');
  });
  it('the repository script under pnpm from npx: npx -y pnpm@9 -s redis-benchdb', () => {
    expect(
      cliName(
        {
          npm_lifecycle_event: 'redis-benchdb',
          npm_execpath: '/home/u/.npm/_npx/9f/node_modules/pnpm/bin/pnpm.cjs',
          npm_config_user_agent: 'pnpm/9.15.9 npm/? node/v20',
        },
        ['node', '/repo/packages/cli/dist/bin.js'],
      ),
    ).toBe('npx -y pnpm@9 -s redis-benchdb');
  });
});

describe('connectionFlags', () => {
  it('reaches the same server, password left out', () => {
    expect(
      connectionFlags({
        host: '10.0.0.5',
        port: 6380,
        db: 3,
        resp3: false,
        user: 'bench',
        password: 'secret',
        tls: { caFile: '/ca.pem', insecure: true },
        cluster: true,
      }),
    ).toEqual([
      '-h',
      '10.0.0.5',
      '-p',
      '6380',
      '--user',
      'bench',
      '--dbnum',
      '3',
      '--tls',
      '--cacert',
      '/ca.pem',
      '--insecure',
      '--cluster',
    ]);
    expect(
      connectionFlags({ host: '127.0.0.1', port: 6379, socket: '/tmp/r.sock', db: 0, resp3: false }),
    ).toEqual(['-s', '/tmp/r.sock']);
  });
});

describe('shellQuote and signalExitCode', () => {
  it('quotes what the shell would split or expand', () => {
    expect(shellQuote('rbdb:3f9c1a:')).toBe('rbdb:3f9c1a:');
    expect(shellQuote("it's a dir")).toBe(`'it'\\''s a dir'`);
    expect(shellQuote('$HOME')).toBe(`'$HOME'`);
  });
  it('128 + the signal number', () => {
    expect(signalExitCode('SIGINT')).toBe(130);
    expect(signalExitCode('SIGTERM')).toBe(143);
    expect(signalExitCode('SIGHUP')).toBe(129);
  });
});
