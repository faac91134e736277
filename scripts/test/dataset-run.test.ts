import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findServerBinary } from '@redis-benchdb/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDatasetDir, MANIFEST_NAME, machineDirs, upgradeManifest } from '../lib/dataset.mjs';

// scripts/dataset-run.mjs end to end, on tiny runs into a temp data dir: two source archives whose
// Makefile copies the redis-server on PATH (so build:server checks, builds and caches them for real,
// without a compiler), one interleaved pinned group signed with a data key the run makes itself,
// then a second group on the same machine with another new key, as the next session on a fresh
// machine would; then the checks CI runs on data/results, on that directory and on broken copies,
// and a member's `reproduce` command run as the manifest gives it.
const root = fileURLToPath(new URL('../../', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'rbdb-dataset-run-'));
const archives = join(temp, 'archives');
const dataDir = join(temp, 'results');
// Build cache, local database and the user's own key: never the real ones of whoever runs the test.
const env = {
  XDG_CACHE_HOME: join(temp, 'cache'),
  XDG_DATA_HOME: join(temp, 'data-home'),
  REDIS_BENCHDB_CONFIG_DIR: join(temp, 'user-key'),
};
afterAll(() => rmSync(temp, { recursive: true, force: true }));

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}
/** A command until it exits, without blocking vitest's worker (a tiny run takes a minute at load). */
function exec(cmd: string, args: string[], extra: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env, ...extra } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
const node = (args: string[]) => exec(process.execPath, args);
const datasetRun = (keyDir: string, ...args: string[]) =>
  node([
    'scripts/dataset-run.mjs',
    '--key-dir',
    keyDir,
    '--data-dir',
    dataDir,
    '--archives',
    archives,
    ...args,
  ]);
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** A source archive `redis-TAG.tar.gz` in `archives`, listed in its SHA256SUMS. */
async function sourceArchive(tag: string): Promise<string> {
  const name = `redis-${tag}`;
  const tree = join(temp, 'tree', name);
  mkdirSync(tree, { recursive: true });
  writeFileSync(
    join(tree, 'Makefile'),
    `all:\n\tmkdir -p src\n\tcp ${findServerBinary('redis-server')} src/redis-server\n`,
  );
  mkdirSync(archives, { recursive: true });
  const file = join(archives, `${name}.tar.gz`);
  const tar = await exec('tar', ['-czf', file, '-C', join(temp, 'tree'), name]);
  if (tar.status !== 0) throw new Error(tar.stderr);
  appendFileSync(join(archives, 'SHA256SUMS'), `${sha256(readFileSync(file))}  ${name}.tar.gz\n`);
  return file;
}

const keyA = join(temp, 'key-a');
const keyB = join(temp, 'key-b');
const TINY = ['--', '-t', 'ping_inline', '-n', '2000'];
let first: Ran;
let second: Ran;
let machineDir: string;
let manifest: {
  groups: {
    runGroupId: string;
    keyFingerprint: string;
    command: string;
    runnerCommit: string;
    servers: { tag: string; sha256: string }[];
    members: { file: string; label: string; reproduce: string }[];
  }[];
};
beforeAll(async () => {
  await sourceArchive('9.9-a');
  await sourceArchive('9.9-b');
  // No key in key-a or key-b: each run makes its own, as a session on a fresh machine does.
  first = await datasetRun(keyA, 'redis-9.9-a', 'redis-9.9-b', ...TINY);
  if (first.status !== 0) throw new Error(`dataset-run failed (${first.status}):\n${first.stderr}`);
  second = await datasetRun(keyB, 'redis-9.9-a', 'redis-9.9-b', ...TINY);
  if (second.status !== 0) throw new Error(`dataset-run failed (${second.status}):\n${second.stderr}`);
  machineDir = join(dataDir, machineDirs(dataDir)[0]!);
  manifest = JSON.parse(readFileSync(join(machineDir, MANIFEST_NAME), 'utf8'));
});

const fingerprints = () => new Set(manifest.groups.map((g) => g.keyFingerprint));

describe('dataset-run on tiny runs', () => {
  it('makes a data key where there is none, adds its public half to keys/ and says to commit and name it', () => {
    const [a, b] = manifest.groups.map((g) => g.keyFingerprint);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b).not.toBe(a);
    expect(existsSync(join(keyA, 'signing-key.pem'))).toBe(true);
    expect(readdirSync(join(dataDir, 'keys')).sort()).toEqual(
      [a, b].map((k) => `${k!.slice('sha256:'.length)}.pub.pem`).sort(),
    );
    expect(first.stderr).toContain(`no data key in ${keyA}: made a new one`);
    expect(first.stderr).toContain(
      `${a} is a new data key: commit ${relative(root, join(dataDir, 'keys', `${a!.slice(7)}.pub.pem`))} with the results`,
    );
    expect(first.stderr).toContain('name the fingerprint in data/README.md');
  });

  it('a second run on the same machine adds a group to the manifest, beside the first', () => {
    expect(machineDirs(dataDir)).toHaveLength(1);
    expect(machineDir).toMatch(/-\d+cpu-[a-z0-9.-]+$/);
    expect(manifest.groups).toHaveLength(2);
    expect(manifest.groups[0]!.runGroupId).not.toBe(manifest.groups[1]!.runGroupId);
    expect(second.stderr).toContain(`(group 2)`);
    expect(second.stderr).toMatch(/wrote 2 results and group 2 of /);
    expect(readdirSync(machineDir).filter((f) => f !== MANIFEST_NAME)).toHaveLength(4);
    expect(checkDatasetDir(machineDir, { keyFingerprints: fingerprints() })).toEqual([]);
  });

  it('names the command, the commit, the key and each archive in each group', () => {
    for (const group of manifest.groups) {
      expect(group.command).toMatch(
        /^redis-benchdb run --server-bin .* -t ping_inline -n 2000 --no-store --out /,
      );
      expect(group.command).toContain('--server-cpus');
      expect(group.runnerCommit).toMatch(/^[0-9a-f]{40}$/);
      expect(group.servers.map((s) => s.tag)).toEqual(['9.9-a', '9.9-b']);
      expect(group.members.map((m) => m.label)).toEqual([
        expect.stringMatching(/^redis-server \S+ \(9\.9-a\)$/),
        expect.stringMatching(/^redis-server \S+ \(9\.9-b\)$/),
      ]);
    }
    const [group] = manifest.groups;
    // The archive as a path from the checkout's root, where the command is run.
    expect(group!.members[0]!.reproduce).toContain(
      `build:server ${relative(root, join(archives, 'redis-9.9-a.tar.gz'))} --sha256 ${group!.servers[0]!.sha256}`,
    );
  });

  it('pnpm db:build ingests both groups and skips the manifest and the keys', async () => {
    const built = await node(['scripts/db-build.mjs', '--data', dataDir, '--db', join(temp, 'db.sqlite')]);
    expect(built.stderr).toBe('');
    expect(built.stdout).toMatch(/^db:build: 4 results, /);
  });

  it("a member's reproduce command, run as the manifest gives it, measures the same cells again", async () => {
    const member = manifest.groups[0]!.members[0]!;
    // As written but for the output, which goes to the temp dir instead of the checkout.
    const out = join(temp, 'reproduced.json');
    expect(member.reproduce).toMatch(/ --out r\.json$/);
    const ran = await exec('bash', ['-c', member.reproduce.replace(/ --out r\.json$/, ` --out ${out}`)]);
    expect(ran.status, ran.stderr).toBe(0);
    // A launched server is a run group of one: --out X.json writes X.0.json.
    const reproduced = join(temp, 'reproduced.0.json');
    const compared = await node(['scripts/dataset-compare.mjs', join(machineDir, member.file), reproduced]);
    expect(compared.status, compared.stderr).toBe(0);
    expect(compared.stdout).toMatch(/^\d of 1 cells within the original's 95% interval$/m);
  });
});

describe('the data/results check finds what is wrong', () => {
  const broken = (name: string, change: (dir: string, files: string[]) => void) => {
    const dir = join(temp, `broken-${name}`);
    cpSync(machineDir, dir, { recursive: true });
    change(
      dir,
      readdirSync(dir)
        .filter((f) => f !== MANIFEST_NAME)
        .sort(),
    );
    return checkDatasetDir(dir, { keyFingerprints: fingerprints() });
  };
  const editManifest = (dir: string, edit: (m: typeof manifest) => void) => {
    const path = join(dir, MANIFEST_NAME);
    const m = JSON.parse(readFileSync(path, 'utf8'));
    edit(m);
    writeFileSync(path, JSON.stringify(m));
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

  it('a manifest that names other checksums', () => {
    const problems = broken('manifest', (dir) =>
      editManifest(dir, (m) => {
        m.groups[0]!.servers[0]!.sha256 = '0'.repeat(64);
      }),
    );
    expect(problems).toEqual([expect.stringMatching(/the manifest says sha256:0{64} \(tag 9\.9-a\)$/)]);
  });

  it('a group signed by a key keys/ does not list, or files signed by another key than their group names', () => {
    const [a, b] = manifest.groups.map((g) => g.keyFingerprint);
    expect(checkDatasetDir(machineDir, { keyFingerprints: new Set([a!]) })).toEqual([
      expect.stringContaining(
        `manifest.json: group ${manifest.groups[1]!.runGroupId} is signed by ${b}, which is not a data key (${a}): add its public half as keys/${b!.slice(7)}.pub.pem`,
      ),
    ]);
    const swapped = broken('swapped', (dir) =>
      editManifest(dir, (m) => {
        m.groups[0]!.keyFingerprint = b!;
      }),
    );
    expect(swapped).toEqual([
      expect.stringContaining(`signed by ${a}, not by the key its group names (${b})`),
      expect.stringContaining(`signed by ${a}, not by the key its group names (${b})`),
    ]);
  });

  it('a v1 manifest (one key for the directory) reads as v2 with that key on each group', () => {
    const { groups, ...rest } = manifest as unknown as { groups: Record<string, unknown>[] };
    const v1 = {
      ...rest,
      schema: 'redis-benchdb/dataset-manifest.v1',
      keyFingerprint: 'sha256:k',
      groups: groups.map(({ keyFingerprint: _, ...g }) => g),
    };
    const v2 = upgradeManifest(v1);
    expect(v2.schema).toBe('redis-benchdb/dataset-manifest.v2');
    expect(v2.keyFingerprint).toBeUndefined();
    expect(v2.groups.map((g: { keyFingerprint: string }) => g.keyFingerprint)).toEqual([
      'sha256:k',
      'sha256:k',
    ]);
  });
});

describe('dataset-run refuses', () => {
  it('a binary build:server did not make, naming what to do', async () => {
    const bin = JSON.parse(
      (await node(['scripts/build-server.mjs', join(archives, 'redis-9.9-a.tar.gz'), '--json'])).stdout,
    )[0].binary as string;
    const copy = join(temp, 'altered', 'redis-server');
    cpSync(join(bin, '..'), join(copy, '..'), { recursive: true });
    appendFileSync(copy, 'x');
    const r = await datasetRun(keyA, copy);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${copy} is not the binary`);
    expect(r.stderr).toContain('pnpm build:server redis-9.9-a.tar.gz');
  });

  /** dataset:run into a copy of the data directory whose manifest `edit` changed: its dir and the run. */
  async function runBesideEditedManifest(
    name: string,
    edit: (machine: { cpu: Record<string, unknown> }) => void,
  ) {
    const other = join(temp, name);
    cpSync(dataDir, other, { recursive: true });
    const dir = join(other, machineDirs(other)[0]!);
    const m = JSON.parse(readFileSync(join(dir, MANIFEST_NAME), 'utf8'));
    edit(m.machine);
    writeFileSync(join(dir, MANIFEST_NAME), JSON.stringify(m));
    const r = await node([
      'scripts/dataset-run.mjs',
      ...['--key-dir', keyA, '--data-dir', other, '--archives', archives, 'redis-9.9-a'],
    ]);
    return { other, dir, r };
  }

  it('a data directory of another machine, before the run', async () => {
    const { other, dir, r } = await runBesideEditedManifest('other-machine', (machine) => {
      machine.cpu.model = 'Another CPU';
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${dir} holds results of another machine`);
    expect(r.stderr).toContain(
      `pass --machine with a new name, e.g. --machine ${machineDirs(other)[0]}-2. Nothing was run.`,
    );
    expect(r.stderr).not.toContain('running:');
  });

  it("finds this machine's directory by its manifest when it was named by hand (--machine) earlier", async () => {
    const other = join(temp, 'named-by-hand');
    cpSync(dataDir, other, { recursive: true });
    renameSync(join(other, machineDirs(other)[0]!), join(other, 'my-vm'));
    // Written before the probe read family, model and stepping: still this machine's directory.
    const manifestPath = join(other, 'my-vm', MANIFEST_NAME);
    const m = JSON.parse(readFileSync(manifestPath, 'utf8'));
    expect(m.machine.cpu).toHaveProperty('family');
    for (const k of ['family', 'modelNumber', 'stepping']) delete m.machine.cpu[k];
    writeFileSync(manifestPath, JSON.stringify(m));
    const r = await node([
      'scripts/dataset-run.mjs',
      ...['--key-dir', keyA, '--data-dir', other, '--archives', archives, 'redis-9.9-a', ...TINY],
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`the results go to ${join(other, 'my-vm')} (group 3)`);
    expect(machineDirs(other)).toEqual(['my-vm']);
  });

  it('a machine under the same CPU name with other caches (another CPU generation), before the run', async () => {
    const { dir, r } = await runBesideEditedManifest('other-generation', (machine) => {
      expect(machine.cpu).toHaveProperty('cacheL1dKiB');
      machine.cpu.cacheL1dKiB = Number(machine.cpu.cacheL1dKiB ?? 0) + 16;
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${dir} holds results of another machine`);
    expect(r.stderr).not.toContain('running:');
  });

  // Only x86's /proc/cpuinfo has a model number to tell CPUs apart by.
  it.runIf(process.arch === 'x64')(
    'a machine under the same CPU name and caches with another CPU model number, before the run',
    async () => {
      const { dir, r } = await runBesideEditedManifest('other-model-number', (machine) => {
        expect(machine.cpu.modelNumber).toEqual(expect.any(Number));
        machine.cpu.modelNumber = Number(machine.cpu.modelNumber) + 1;
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`${dir} holds results of another machine`);
      expect(r.stderr).not.toContain('running:');
    },
  );

  it('an unknown option, pointing to --help, which lists the options and the full group', async () => {
    const r = await node(['scripts/dataset-run.mjs', '--profle', 'full']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('pnpm dataset:run --help lists them');
    const help = await node(['scripts/dataset-run.mjs', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--key-dir DIR');
    expect(help.stdout).toContain('pnpm dataset:run --profile full redis-6.0.20 ');
  });
});
