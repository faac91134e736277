import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findServerBinary } from '@redis-benchdb/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_MANIFEST_NAME, BUILD_MANIFEST_SCHEMA, readServerBuild } from '../src/build-manifest.js';
import { collectServer } from '../src/server.js';
import { type OwnServer, serverCommands, startOwnServer } from './helpers/own-server.js';

// A copy of the redis-server on PATH with a manifest beside it, as scripts/build-server.mjs
// writes one: the reading rules hold whatever binary it is.
const dirs: string[] = [];
const servers: OwnServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const ARCHIVE_SHA = 'a'.repeat(64);
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function builtCopy(manifest: Record<string, unknown> = {}): string {
  const system = findServerBinary('redis-server');
  if (!system) throw new Error('redis-server not found on PATH: sudo apt-get install redis-server');
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-build-manifest-'));
  dirs.push(dir);
  const bin = join(dir, 'redis-server');
  copyFileSync(system, bin);
  const written = {
    schema: BUILD_MANIFEST_SCHEMA,
    name: 'redis-9.9-m07',
    archive: 'redis-9.9-m07.tar.gz',
    sha256: ARCHIVE_SHA,
    project: 'redis/redis',
    tag: '9.9-m07',
    commit: 'b'.repeat(40),
    binary: bin,
    binarySha256: sha256(bin),
    make: ['make', '-j2', 'BUILD_TLS=no', 'USE_SYSTEMD=no'],
    ...manifest,
  };
  writeFileSync(join(dir, BUILD_MANIFEST_NAME), JSON.stringify(written));
  return bin;
}

describe('readServerBuild', () => {
  it('returns the archive, its checksum, the tag, the commit and the make command', async () => {
    expect(await readServerBuild(builtCopy())).toEqual({
      archive: 'redis-9.9-m07.tar.gz',
      archiveSha256: `sha256:${ARCHIVE_SHA}`,
      tag: '9.9-m07',
      project: 'redis/redis',
      commit: 'b'.repeat(40),
      make: ['make', '-j2', 'BUILD_TLS=no', 'USE_SYSTEMD=no'],
    });
  });

  it('ignores a manifest whose binary has changed since the build', async () => {
    const bin = builtCopy();
    appendFileSync(bin, 'x');
    expect(await readServerBuild(bin)).toBeNull();
  });

  it('ignores a binary without a manifest, and a manifest that is not a build manifest', async () => {
    expect(await readServerBuild(findServerBinary('redis-server')!)).toBeNull();
    expect(await readServerBuild(builtCopy({ schema: 'something-else' }))).toBeNull();
    expect(await readServerBuild(builtCopy({ sha256: 'not-hex' }))).toBeNull();
  });

  it('cleans what it copies into the result: no control characters, commit only as hex', async () => {
    const build = await readServerBuild(builtCopy({ tag: '9.9\u202e-m07\n', commit: 'HEAD' }));
    expect(build?.tag).toBe('9.9-m07');
    expect(build?.commit).toBeNull();
  });
});

describe('collectServer on a server the runner did not launch', () => {
  let own: OwnServer;
  beforeAll(async () => {
    own = await startOwnServer(builtCopy());
    servers.push(own);
  });

  it("records the build's tag beside the version the server reports", async () => {
    const s = await collectServer(serverCommands(own.redis), true);
    const v = execFileSync(findServerBinary('redis-server')!, ['--version'], { encoding: 'utf8' });
    expect(s.version).toBe(/v=(\S+)/.exec(v)?.[1]);
    expect(s.build?.tag).toBe('9.9-m07');
    expect(s.build?.archiveSha256).toBe(`sha256:${ARCHIVE_SHA}`);
  });

  it('reads no local file for a server that is not local', async () => {
    const s = await collectServer(serverCommands(own.redis), false);
    expect(s.build).toBeUndefined();
  });
});
