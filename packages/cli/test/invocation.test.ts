import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliName, connectionFlags, shellQuote, signalExitCode } from '../src/run/invocation.js';

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
