// `npm pack` of the runner, installed from the tarball into an empty directory with an empty home
// and npm cache, as a stranger would: shared by the pack test and the publishing end-to-end test.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CLI_DIR, type SpawnOptions } from './cli.js';

const execFileP = promisify(execFile);

export interface PackageJson {
  name: string;
  version: string;
  license: string;
  repository?: { type: string; url: string; directory?: string };
  engines?: { node?: string };
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}

export const pkg = JSON.parse(readFileSync(path.join(CLI_DIR, 'package.json'), 'utf8')) as PackageJson;
export const tarball = `${pkg.name}-${pkg.version}.tgz`;

/** Packing, an npm install and the runs after it: a guard against a hang, not a guess at the time. */
export const PACK_BACKSTOP_MS = 30 * 60_000;

export interface Installed {
  /** The temp directory holding the rest: the caller removes it. */
  root: string;
  /** Where the tarball was installed (`npx redis-benchdb` runs there). */
  dir: string;
  home: string;
  env: Record<string, string>;
  /** What `npm pack --json` said it packed. */
  packed: { filename: string; files: { path: string }[] };
  /** npm install's output. */
  installLog: string;
  /** runCli's options to run the installed bin as an npx user does. */
  npx: SpawnOptions;
}

/** Pack packages/cli and install the tarball in a new empty directory with an empty HOME. */
export async function packAndInstall(): Promise<Installed> {
  const { stdout } = await execFileP('npm', ['pack', '--json'], { cwd: CLI_DIR, maxBuffer: 16 << 20 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Installed['packed'][];
  const root = await mkdtemp(path.join(tmpdir(), 'rbdb-pack-'));
  const [dir, home, cache] = ['project', 'home', 'npm-cache'].map((d) => path.join(root, d)) as [
    string,
    string,
    string,
  ];
  await Promise.all([dir, home, cache].map((d) => mkdir(d)));
  await rename(path.join(CLI_DIR, tarball), path.join(dir, tarball));
  const env: Record<string, string> = {
    HOME: home,
    npm_config_cache: cache,
    npm_config_userconfig: path.join(home, '.npmrc'),
    REDIS_BENCHDB_CONFIG_DIR: '',
    XDG_CONFIG_HOME: '',
    REDIS_BENCHDB_DB: '',
    XDG_DATA_HOME: '',
    REDIS_BENCHDB_SERVER: '',
    // pnpm exec points NODE_PATH at the workspace's packages, where better-sqlite3 is: a stranger has none.
    NODE_PATH: '',
  };
  const install = await execFileP(
    'npm',
    ['install', '--prefer-online', '--no-audit', '--no-fund', '--foreground-scripts', `./${tarball}`],
    { cwd: dir, env: { ...process.env, ...env }, maxBuffer: 16 << 20 },
  );
  return {
    root,
    dir,
    home,
    env,
    packed: packed!,
    installLog: install.stdout + install.stderr,
    npx: { cwd: dir, command: ['npx', 'redis-benchdb'], env },
  };
}
