import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  findServerBinary,
  installHint,
  parseServerVersion,
  readServerVersion,
} from '../../src/launch/binary.js';

// `--version` lines in the shape each product prints. The Redis 7.0.15 line is this machine's
// redis-server; in the others only the product and v= follow the releases, sha and build are made up.
const REDIS_7_0 =
  'Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0\n';
const REDIS_8_0_M01 =
  'Redis server v=7.9.224 sha=00000000:1 malloc=jemalloc-5.3.0 bits=64 build=8c7ae0f1bd1f1d3e\n';
const VALKEY_7_2 =
  'Valkey server v=7.2.5 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=bbd5cb9b8cab3d8e\n';
const VALKEY_8_0 =
  'Valkey server v=8.0.1 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=5d4b0ad81fa3b6d0\n';

describe('parseServerVersion', () => {
  it('reads product and version for Redis, Redis 8.0-M01, Valkey 7.2 and 8.0', () => {
    expect(parseServerVersion(REDIS_7_0)).toEqual({ product: 'Redis', version: '7.0.15' });
    expect(parseServerVersion(REDIS_8_0_M01)).toEqual({ product: 'Redis', version: '7.9.224' });
    expect(parseServerVersion(VALKEY_7_2)).toEqual({ product: 'Valkey', version: '7.2.5' });
    expect(parseServerVersion(VALKEY_8_0)).toEqual({ product: 'Valkey', version: '8.0.1' });
  });

  it('finds the line among others (a warning on stderr first), and a bare v= without a product', () => {
    expect(parseServerVersion(`\nWARNING: something odd\n${VALKEY_8_0}`)).toEqual({
      product: 'Valkey',
      version: '8.0.1',
    });
    expect(parseServerVersion('v=6.2.14 sha=0')).toEqual({ product: 'unknown', version: '6.2.14' });
  });

  it('returns null without a v= field (sha= and malloc= are not versions)', () => {
    expect(parseServerVersion('')).toBeNull();
    expect(parseServerVersion('redis-server: unknown option --version')).toBeNull();
    expect(parseServerVersion('sha=00000000:0 malloc=jemalloc-5.3.0')).toBeNull();
  });
});

describe('binaries on disk', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('finds an executable by path, and not a file that cannot run', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rbdb-bin-'));
    dirs.push(dir);
    const fake = path.join(dir, 'valkey-server');
    await writeFile(fake, `#!/bin/sh\necho '${VALKEY_8_0.trim()}'\n`);
    expect(findServerBinary(fake)).toBeNull();
    await chmod(fake, 0o755);
    expect(findServerBinary(fake)).toBe(fake);
    expect(await readServerVersion(fake)).toBe('8.0.1');
  });

  it("reads the installed redis-server's version", async () => {
    const bin = findServerBinary('redis-server');
    expect(bin).not.toBeNull();
    expect(await readServerVersion(bin!)).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('says how to install the binary that is missing, or which flag to pass', () => {
    expect(installHint('valkey-server')).toBe(
      'valkey-server not found on PATH: install it (Debian/Ubuntu: sudo apt-get install valkey-server; macOS: brew install valkey) or pass --server-bin PATH',
    );
    expect(installHint('/opt/redis/bin/redis-server')).toMatch(
      /^redis-server not found at \/opt\/redis\/bin\/redis-server: .*sudo apt-get install redis-server;.*--server-bin PATH$/,
    );
  });
});
