import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILD_MANIFEST_NAME } from '../src/build-manifest.js';
import { collectServer } from '../src/server.js';
import { type OwnServer, serverCommands, startOwnServer } from './helpers/own-server.js';

// The servers of issue 14, as scripts/build-server.mjs builds them from ../shared/servers, and what
// the probe must say of each: the product, the version the server itself reports (Valkey 7.2
// reports redis_version:7.2.4 and Redis 8.0-m01 reports 7.9.224) and the archive's tag.
const EXPECTED = [
  { name: 'redis-6.0.20', product: 'redis', version: '6.0.20', tag: '6.0.20' },
  { name: 'redis-6.2.16', product: 'redis', version: '6.2.16', tag: '6.2.16' },
  { name: 'redis-7.0.15', product: 'redis', version: '7.0.15', tag: '7.0.15' },
  { name: 'redis-7.2.6', product: 'redis', version: '7.2.6', tag: '7.2.6' },
  { name: 'redis-7.4.1', product: 'redis', version: '7.4.1', tag: '7.4.1' },
  { name: 'redis-8.0-m01', product: 'redis', version: '7.9.224', tag: '8.0-m01' },
  { name: 'valkey-7.2.7', product: 'valkey', version: '7.2.7', tag: '7.2.7' },
  { name: 'valkey-8.0.1', product: 'valkey', version: '8.0.1', tag: '8.0.1' },
] as const;

// The cache build-server writes to (scripts/lib/server-build.mjs serverCacheDir; tests do not
// import scripts/).
const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'redis-benchdb', 'servers');

/** The binary build-server made of `name`, from its manifest, or null when it has not been built. */
function builtBinary(name: string): string | null {
  if (!existsSync(cache)) return null;
  for (const dir of readdirSync(cache)) {
    const file = join(cache, dir, 'bin', BUILD_MANIFEST_NAME);
    if (!dir.startsWith(`${name}-`) || !existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    if (manifest.name === name && existsSync(manifest.binary)) return manifest.binary;
  }
  return null;
}

let running: OwnServer | null = null;
afterEach(async () => {
  await running?.stop();
  running = null;
});

describe('the probe on each server built from ../shared/servers', () => {
  for (const want of EXPECTED) {
    const bin = builtBinary(want.name);
    const title = bin
      ? `${want.name}: ${want.product} ${want.version}, tag ${want.tag}`
      : `${want.name}: skipped, not built (pnpm build:server ../shared/servers/${want.name}.tar.gz)`;
    it.skipIf(!bin)(title, async () => {
      running = await startOwnServer(bin!);
      const s = await collectServer(serverCommands(running.redis), true);
      expect({ product: s.product, version: s.version, tag: s.build?.tag }).toEqual({
        product: want.product,
        version: want.version,
        tag: want.tag,
      });
      // A source archive has no .git: the server reports sha 00000000, the build names the commit.
      expect(s.gitSha).toBeNull();
      expect(s.build?.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(s.buildId).toMatch(/^[0-9a-f]+$/);
      expect(s.allocator).toMatch(/^jemalloc-/);
    });
  }
});
