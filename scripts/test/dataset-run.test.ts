import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findServerBinary } from '@redis-benchdb/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDatasetDir, MANIFEST_NAME } from '../lib/dataset.mjs';

// scripts/dataset-run.mjs end to end, on a tiny run: two "builds" (copies of the redis-server on
// PATH, each with the manifest build:server writes, so no compiler is needed), one interleaved
// pinned group, signed with a throwaway key, into a temp data dir; then the checks CI runs on
// data/results, on that directory and on broken copies of it.
const root = fileURLToPath(new URL('../../', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'rbdb-dataset-run-'));
const keyDir = join(temp, 'key');
const dataDir = join(temp, 'results');
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const node = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function fakeBuild(tag: string): string {
  const dir = join(temp, `build-${tag}`);
  mkdirSync(dir);
  const bin = join(dir, 'redis-server');
  copyFileSync(findServerBinary('redis-server')!, bin);
  const manifest = {
    schema: 'redis-benchdb/server-build.v1',
    name: `redis-${tag}`,
    archive: `redis-${tag}.tar.gz`,
    sha256: createHash('sha256').update(tag).digest('hex'),
    project: 'redis/redis',
    tag,
    commit: 'c'.repeat(40),
    binary: bin,
    binarySha256: sha256(bin),
    make: ['make', '-j2', 'BUILD_TLS=no', 'USE_SYSTEMD=no'],
  };
  writeFileSync(join(dir, 'redis-benchdb-build.json'), JSON.stringify(manifest));
  return bin;
}

let run: ReturnType<typeof node>;
let machineDir: string;
let keyFingerprint: string;
beforeAll(() => {
  const key = node([join(root, 'packages/cli/dist/bin.js'), 'keygen', '--json'], {
    REDIS_BENCHDB_CONFIG_DIR: keyDir,
  });
  keyFingerprint = JSON.parse(key.stdout).keyFingerprint;
  const dataset = ['scripts/dataset-run.mjs', '--key-dir', keyDir, '--data-dir', dataDir];
  run = node([...dataset, fakeBuild('9.9-a'), fakeBuild('9.9-b'), '--', '-t', 'ping_inline', '-n', '2000']);
  if (run.status !== 0) throw new Error(`dataset-run failed (${run.status}):\n${run.stderr}`);
  const dirs = readdirSync(dataDir).filter((d) => !d.endsWith('.pem'));
  machineDir = join(dataDir, dirs[0]!);
});

describe('dataset-run on a tiny run', () => {
  it('writes one signed file per server, the manifest and the public data key', () => {
    expect(run.status, run.stderr).toBe(0);
    // The machine's directory, named after its CPU model, CPU count and hypervisor, and the key.
    expect(readdirSync(dataDir).sort()).toEqual([machineDir.split('/').pop(), 'data-key.pub.pem'].sort());
    expect(machineDir).toMatch(/-\d+cpu-[a-z0-9.-]+$/);
    expect(readdirSync(machineDir).filter((f) => f !== MANIFEST_NAME)).toHaveLength(2);
    expect(checkDatasetDir(machineDir, { keyFingerprint })).toEqual([]);
  });

  it('names the machine, the command, the commit and each archive in the manifest', () => {
    const manifest = JSON.parse(readFileSync(join(machineDir, MANIFEST_NAME), 'utf8'));
    expect(manifest.machine.cpu.threads).toBeGreaterThan(0);
    const [group] = manifest.groups;
    expect(group.command).toMatch(
      /^redis-benchdb run --server-bin .* -t ping_inline -n 2000 --no-store --out /,
    );
    expect(group.command).toContain('--server-cpus');
    expect(group.runnerCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(group.servers.map((s: { tag: string }) => s.tag)).toEqual(['9.9-a', '9.9-b']);
    expect(group.members.map((m: { label: string }) => m.label)).toEqual([
      expect.stringMatching(/^redis-server \S+ \(9\.9-a\)$/),
      expect.stringMatching(/^redis-server \S+ \(9\.9-b\)$/),
    ]);
    expect(group.members[0].reproduce).toContain(
      `build:server redis-9.9-a.tar.gz --sha256 ${group.servers[0].sha256}`,
    );
  });

  it('pnpm db:build ingests the results directory and skips its manifest', () => {
    const built = node(['scripts/db-build.mjs', '--data', dataDir, '--db', join(temp, 'db.sqlite')]);
    expect(built.stderr).toBe('');
    expect(built.stdout).toMatch(/^db:build: 2 results, /);
  });
});

describe('the data/results check finds what is wrong', () => {
  const broken = (name: string, change: (dir: string, files: string[]) => void) => {
    const dir = join(temp, `broken-${name}`);
    cpSync(machineDir, dir, { recursive: true });
    change(
      dir,
      readdirSync(dir).filter((f) => f !== MANIFEST_NAME),
    );
    return checkDatasetDir(dir, { keyFingerprint });
  };

  it('a file missing, or one the manifest does not list', () => {
    expect(broken('missing', (dir, [a]) => unlinkSync(join(dir, a!)))).toEqual([
      expect.stringMatching(/listed in the manifest but missing$/),
    ]);
    expect(broken('extra', (dir, [a]) => copyFileSync(join(dir, a!), join(dir, 'extra.json')))).toEqual([
      expect.stringMatching(/extra\.json: not listed in the manifest$/),
    ]);
  });

  it('a file changed after it was signed', () => {
    const problems = broken('edited', (dir, [a]) => {
      const file = join(dir, a!);
      writeFileSync(file, readFileSync(file, 'utf8').replace('"payload": "{', '"payload": "{ '));
    });
    expect(problems).toEqual([expect.stringMatching(/signature or schema: /)]);
  });

  it('a manifest that names other checksums, or another key', () => {
    const problems = broken('manifest', (dir) => {
      const path = join(dir, MANIFEST_NAME);
      const manifest = JSON.parse(readFileSync(path, 'utf8'));
      manifest.groups[0].servers[0].sha256 = '0'.repeat(64);
      writeFileSync(path, JSON.stringify(manifest));
    });
    expect(problems).toEqual([expect.stringMatching(/the manifest says sha256:0{64} \(tag 9\.9-a\)$/)]);
    expect(checkDatasetDir(machineDir, { keyFingerprint: `sha256:${'1'.repeat(64)}` })).toContain(
      `${join(machineDir, MANIFEST_NAME)}: keyFingerprint ${keyFingerprint} is not the data key sha256:${'1'.repeat(64)}`,
    );
  });
});

describe('dataset-run refuses', () => {
  it('a binary build:server did not make, naming what to do', () => {
    const bin = fakeBuild('9.9-c');
    appendFileSync(bin, 'x');
    const r = node(['scripts/dataset-run.mjs', '--key-dir', keyDir, '--data-dir', dataDir, bin]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${bin} is not the binary`);
    expect(r.stderr).toContain('pnpm build:server redis-9.9-c.tar.gz');
  });

  it('a key other than the data directory names', () => {
    const other = join(temp, 'other-key');
    node([join(root, 'packages/cli/dist/bin.js'), 'keygen'], { REDIS_BENCHDB_CONFIG_DIR: other });
    const r = node([
      'scripts/dataset-run.mjs',
      '--key-dir',
      other,
      '--data-dir',
      dataDir,
      fakeBuild('9.9-d'),
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/is not the key of .*data-key\.pub\.pem/);
  });
});
