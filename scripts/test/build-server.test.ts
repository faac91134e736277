import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/build-server.mjs with real tar and make on a small source archive whose Makefile makes a
// src/redis-server script in a moment: the checksum rules, the cache, the manifest and the output.
// Building the real servers takes minutes each; packages/probe/test/built-servers.test.ts checks
// those where they have been built.
const root = fileURLToPath(new URL('../../', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'rbdb-build-server-'));
const cache = join(temp, 'cache');
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const MAKEFILE = [
  'all:',
  '\tmkdir -p src',
  `\tprintf '#!/bin/sh\\necho "Redis server v=9.9.9 sha=00000000:0 malloc=libc bits=64 build=0"\\n' > src/redis-server`,
  '\tchmod +x src/redis-server',
  '',
].join('\n');

function archive(name: string, sums: 'right' | 'wrong' | 'none'): string {
  const dir = join(temp, `${name}-${sums}`);
  mkdirSync(join(dir, 'tree', name), { recursive: true });
  writeFileSync(join(dir, 'tree', name, 'Makefile'), MAKEFILE);
  const file = join(dir, `${name}.tar.gz`);
  spawnSync('tar', ['-czf', file, '-C', join(dir, 'tree'), name]);
  const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
  if (sums !== 'none')
    writeFileSync(join(dir, 'SHA256SUMS'), `${sums === 'right' ? sha : '0'.repeat(64)}  ${name}.tar.gz\n`);
  return file;
}

const build = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'scripts/build-server.mjs'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, XDG_CACHE_HOME: cache },
  });

describe('build-server', () => {
  it('builds an archive that matches SHA256SUMS into the cache, prints the binary, and skips it next time', () => {
    const file = archive('redis-9.9.9', 'right');
    const first = build(file);
    expect(first.status, first.stderr).toBe(0);
    const bin = first.stdout.trim();
    expect(bin).toMatch(
      new RegExp(`^${cache}/redis-benchdb/servers/redis-9\\.9\\.9-[0-9a-f]{16}/bin/redis-server$`),
    );
    expect(spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout).toContain('v=9.9.9');
    const again = build(file);
    expect(again.stdout.trim()).toBe(bin);
    expect(again.stderr).toContain('already built');
  });

  it('--json lists the build manifest: name, tag, checksums, make command', () => {
    const file = archive('redis-9.9.9', 'right');
    const r = build(file, '--json');
    const [m] = JSON.parse(r.stdout);
    expect(m).toMatchObject({
      name: 'redis-9.9.9',
      archive: 'redis-9.9.9.tar.gz',
      sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
      tag: '9.9.9',
      make: ['make', '-j2', 'BUILD_TLS=no', 'USE_SYSTEMD=no'],
    });
    expect(readFileSync(join(m.binary, '..', 'redis-benchdb-build.json'), 'utf8')).toContain(m.binarySha256);
  });

  it('refuses an archive whose checksum differs, and builds nothing', () => {
    const r = build(archive('redis-9.9.8', 'wrong'));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /checksum mismatch for .*redis-9\.9\.8\.tar\.gz: it is [0-9a-f]{64}, .*SHA256SUMS says 0{64}/,
    );
    expect(r.stdout).toBe('');
  });

  it('refuses an archive with no known checksum, and takes one from --sha256', () => {
    const file = archive('valkey-9.9.7', 'none');
    const r = build(file);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `no checksum known for ${file}: pass the checksum published with the release as --sha256 HEX`,
    );
    const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
    const given = build(file, '--sha256', sha);
    expect(given.status, given.stderr).toBe(0);
    expect(existsSync(given.stdout.trim())).toBe(true);
  });
});
