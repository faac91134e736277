// The ways a user starts the runner, each as runCli options, for the tests that run every printed
// hint in every form (hints.test.ts): the packed tarball through npx, a global install of it, and
// `pnpm -s redis-benchdb` in the clone. (The published name is the npx form with a registry spec:
// npx records it in the same package.json, and invocation.test.ts covers how it is read.)
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CLI_DIR, type SpawnOptions } from './cli.js';
import { tarball } from './pack.js';

const execFileP = promisify(execFile);
export const REPO_ROOT = path.resolve(CLI_DIR, '../..');

export interface Form {
  name: string;
  /** runCli's options that start the CLI this way (cwd, command, env). */
  opts: SpawnOptions;
  /** The words every hint should start with. */
  prefix: RegExp;
}

/** Environment of a stranger: an empty home, npm's cache in it, nothing of this machine's set. */
function strangerEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    npm_config_cache: path.join(home, '.npm'),
    npm_config_userconfig: path.join(home, '.npmrc'),
    REDIS_BENCHDB_CONFIG_DIR: '',
    XDG_CONFIG_HOME: '',
    REDIS_BENCHDB_DB: '',
    XDG_DATA_HOME: '',
    REDIS_BENCHDB_SERVER: '',
    // pnpm exec points NODE_PATH at the workspace's packages, where better-sqlite3 is: a stranger has none.
    NODE_PATH: '',
  };
}

/** `npm pack` of packages/cli into a new temp dir; returns the dir and the tarball's absolute path. */
export async function packTarball(): Promise<{ root: string; tgz: string }> {
  await execFileP('npm', ['pack', '--json'], { cwd: CLI_DIR, maxBuffer: 16 << 20 });
  const root = await mkdtemp(path.join(tmpdir(), 'rbdb-forms-'));
  const tgz = path.join(root, tarball);
  await rename(path.join(CLI_DIR, tarball), tgz);
  return { root, tgz };
}

/** `npx -y ./redis-benchdb-x.y.z.tgz` in the tarball's own directory, as the issue did it. */
export async function npxTarballForm(root: string, tgz: string): Promise<Form> {
  const home = path.join(root, 'npx-home');
  await mkdir(home);
  return {
    name: 'a tarball through npx',
    opts: {
      cwd: path.dirname(tgz),
      command: ['npx', '-y', `./${path.basename(tgz)}`],
      env: strangerEnv(home),
    },
    prefix: new RegExp(`^npx -y -p ${escapeRegExp(tgz)} redis-benchdb$`),
  };
}

/** `npm install -g` of the tarball under a prefix of its own, on PATH: the name `redis-benchdb`. */
export async function globalForm(root: string, tgz: string): Promise<Form> {
  const home = path.join(root, 'global-home');
  const prefix = path.join(root, 'global');
  await mkdir(home);
  const env = { ...strangerEnv(home), npm_config_prefix: prefix };
  await execFileP('npm', ['install', '-g', '--no-audit', '--no-fund', tgz], {
    cwd: root,
    env: { ...process.env, ...env },
    maxBuffer: 16 << 20,
  });
  const bin = path.join(prefix, 'bin');
  return {
    name: 'a global install',
    opts: {
      cwd: root,
      command: ['redis-benchdb'],
      env: { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
    },
    prefix: /^redis-benchdb$/,
  };
}

/** `pnpm -s redis-benchdb` in the clone, with its own home for keys, results and spool. */
export async function cloneForm(root: string): Promise<Form> {
  const home = path.join(root, 'clone-home');
  await mkdir(home);
  const { NODE_PATH: _, ...env } = strangerEnv(home);
  return {
    name: 'pnpm -s redis-benchdb in a clone',
    opts: { cwd: REPO_ROOT, command: ['pnpm', '-s', 'redis-benchdb'], env },
    prefix: /^(pnpm|npx -y pnpm@9) -s redis-benchdb$/,
  };
}

/**
 * The pid of the runner process (node running the redis-benchdb bin) whose command line names
 * `port`: under npx or pnpm it is a grandchild of the process the test spawned.
 */
export function runnerPid(port: number): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const isNode = path.basename(argv[0] ?? '') === 'node' || argv[0] === process.execPath;
    const isBin = /redis-benchdb|bin\.js$/.test(argv[1] ?? '');
    if (isNode && isBin && argv.includes('run') && argv.includes(String(port))) return Number(entry);
  }
  return null;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The install prefix of the running Node when its own headers (<prefix>/include/node, as the official
 * binaries and Debian's nodejs lay them) are of its version, else null: where node-gyp can find them
 * without a download.
 */
export function nodeHeadersPrefix(): string | null {
  const prefix = path.dirname(path.dirname(realpathSync(process.execPath)));
  let header: string;
  try {
    header = readFileSync(path.join(prefix, 'include', 'node', 'node_version.h'), 'utf8');
  } catch {
    return null;
  }
  const part = (name: string) => header.match(new RegExp(`^#define NODE_${name}_VERSION (\\d+)$`, 'm'))?.[1];
  return `${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}` === process.versions.node ? prefix : null;
}
