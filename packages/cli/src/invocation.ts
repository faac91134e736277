import { readFileSync, realpathSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

/**
 * How the user started this CLI. Every hint it prints begins with `cliName()`, so that the hint can
 * be pasted as is in the same shell:
 * - `npx`: npx fetched the package into its cache (~/.npm/_npx/<hash>/); `packages` are the specs it
 *   installed there (a tarball as an absolute path), so the hint fetches the same ones;
 * - `script`: the repository's `redis-benchdb` script, through `pnpm` (`npx -y pnpm@9` when pnpm
 *   itself came from npx's cache) or npm;
 * - `path`: the name `redis-benchdb` on the user's PATH is this very file (a global install);
 * - `local`: `npx redis-benchdb` found it in ./node_modules/.bin (a local install);
 * - `node`: none of these, so `node /path/to/bin.js`.
 */
export type Invocation =
  | { kind: 'npx'; packages: string[] | null }
  | { kind: 'script'; runner: string }
  | { kind: 'path' }
  | { kind: 'local' }
  | { kind: 'node'; script: string | null };

export function invocation(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv): Invocation {
  const script = argv[1];
  const cache = script ? /^(.*[\\/]_npx[\\/][^\\/]+)[\\/]node_modules[\\/]/.exec(script) : null;
  if (cache) return { kind: 'npx', packages: npxPackages(cache[1]!) };
  if (env.npm_lifecycle_event === 'redis-benchdb')
    return { kind: 'script', runner: env.npm_config_user_agent?.startsWith('pnpm') ? pnpmName(env) : 'npm' };
  const self = script ? real(script) : null;
  for (const dir of self ? (env.PATH ?? '').split(delimiter) : []) {
    if (!dir || real(join(dir, 'redis-benchdb')) !== self) continue;
    // node_modules/.bin is on PATH only inside npx or a package script, not in the user's shell.
    if (!dir.endsWith(join('node_modules', '.bin'))) return { kind: 'path' };
    if (env.npm_command === 'exec') return { kind: 'local' };
    break;
  }
  return { kind: 'node', script: script ?? null };
}

/** The words that start this CLI again the way the user did: `startWords(invocation())`. */
export function cliName(
  env: NodeJS.ProcessEnv = process.env,
  argv: string[] = process.argv,
  withPackages: string[] = [],
): string {
  return startWords(invocation(env, argv), withPackages);
}

/**
 * The one place that decides how a printed command starts, for each way of starting (see
 * `Invocation`). `withPackages` are packages the command needs beside it (better-sqlite3); only
 * npx can add them on the fly.
 */
export function startWords(how: Invocation, withPackages: string[] = []): string {
  switch (how.kind) {
    case 'npx': {
      const packages = [...(how.packages ?? ['redis-benchdb']), ...withPackages];
      if (packages.length === 1 && packages[0] === 'redis-benchdb') return 'npx redis-benchdb';
      return `npx -y ${packages.map((p) => `-p ${shellQuote(p)}`).join(' ')} redis-benchdb`;
    }
    case 'script':
      return how.runner === 'npm' ? 'npm run -s redis-benchdb --' : `${how.runner} -s redis-benchdb`;
    case 'path':
      return 'redis-benchdb';
    case 'local':
      return 'npx redis-benchdb';
    case 'node':
      return how.script ? `${shellQuote(process.execPath)} ${shellQuote(how.script)}` : 'redis-benchdb';
  }
}

/**
 * pnpm as the user can call it: `pnpm`, or `npx -y pnpm@<major>` when the running pnpm came from
 * npx's cache (a machine with no pnpm installed, as the README's commands assume).
 */
export function pnpmName(env: NodeJS.ProcessEnv = process.env): string {
  const fromNpx = /[\\/]_npx[\\/]/.test(env.npm_execpath ?? '');
  const major = /^pnpm\/(\d+)\./.exec(env.npm_config_user_agent ?? '')?.[1];
  return fromNpx ? `npx -y pnpm@${major ?? '9'}` : 'pnpm';
}

/**
 * The specs npx installed in its cache directory `dir`: its package.json lists them as
 * dependencies. A tarball or folder (`file:`, relative to `dir`) becomes an absolute path, so the
 * hint works from any directory; a registry package keeps the words the user gave (`_npx.packages`).
 */
function npxPackages(dir: string): string[] | null {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      _npx?: { packages?: string[] };
    };
    const given = pkg._npx?.packages ?? [];
    return Object.entries(pkg.dependencies ?? {}).map(([name, spec]) => {
      if (spec.startsWith('file:')) return resolve(dir, spec.slice('file:'.length));
      return given.find((g) => g === name || g.startsWith(`${name}@`)) ?? name;
    });
  } catch {
    return null;
  }
}

/** `word` as one POSIX shell word: bare when safe, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** 128 + the signal's number: what a shell reports for a process a signal ended (130 for SIGINT). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 2);
}

function real(path: string): string | null {
  try {
    return statSync(path).isFile() ? realpathSync(path) : null;
  } catch {
    return null;
  }
}
