// The README's first command, as a stranger runs it: a fresh clone, an empty home directory, no
// environment variable set by hand, only the npm registry reachable. The install step runs as
// written; the rest (the run and the site build) runs in a network namespace of its own, where
// 127.0.0.1:6379 is nobody's (on this machine it is a server that is not ours), so the run starts a
// throwaway redis-server as the README says. It is shortened by the flags the README documents for a
// short run. No step has a wall-clock limit; vitest's timeout is only the backstop.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Two commands'));
const firstCommand = (/```sh\n([^\n]*)\n/.exec(section)?.[1] ?? '').trim();
const shortRun = /add `([^`]+)` after `run`/.exec(readme)?.[1] ?? '';

const netns = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
const netnsWhy = netns.status === 0 ? '' : ` (skipped: unshare -n is not available: ${netns.stderr.trim()})`;

const root = mkdtempSync(join(tmpdir(), 'rbdb-readme-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Run a shell command with only PATH and an empty HOME, as a new user's login would have. */
function sh(
  command: string,
  cwd: string,
  home: string,
  extra: Record<string, string> = {},
  wrap: string[] = [],
) {
  return new Promise<{ code: number | null; out: string }>((done, fail) => {
    const child = spawn(wrap[0] ?? 'bash', [...wrap.slice(1), ...(wrap.length ? [] : ['-c']), command], {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.once('error', fail);
    child.once('close', (code) => done({ code, out }));
  });
}

describe("the README's first command on a fresh clone with an empty home", () => {
  it(`installs, runs, builds the site, and prints a link to a page that is there${netnsWhy}`, {
    skip: netnsWhy !== '',
    // A guard against a hang only: an install from an empty store compiles better-sqlite3, which took
    // about 10 minutes at load average 12 on a 2-core machine, and then the run and two builds follow.
    timeout: 60 * 60_000,
  }, async () => {
    const [install, ...rest] = firstCommand.split(' && ');
    expect(install).toBe('node scripts/install.mjs');
    expect(rest.length).toBeGreaterThan(0);
    expect(shortRun).not.toBe('');
    const home = join(root, 'home');
    const repo = join(root, 'repo');
    spawnSync('mkdir', ['-p', home]);
    const cloned = spawnSync('git', ['clone', '--quiet', ROOT, repo], { encoding: 'utf8' });
    expect(cloned.status, cloned.stderr).toBe(0);

    const installed = await sh(install!, repo, home);
    expect(installed.code, installed.out.slice(-4000)).toBe(0);

    // The run and the build, shortened as the README says, where nothing listens on 6379. npm cannot
    // reach the registry in there: it takes pnpm from the cache the install step filled.
    const steps = rest.map((s) => s.replace(/ -s redis-benchdb run$/, ` -s redis-benchdb run ${shortRun}`));
    expect(steps.join(' && ')).toContain(`run ${shortRun}`);
    const script = `ip link set lo up && ${steps.join(' && ')}`;
    const ran = await sh(script, repo, home, { npm_config_prefer_offline: 'true' }, [
      'unshare',
      '-n',
      'sh',
      '-c',
    ]);
    expect(ran.code, ran.out.slice(-6000)).toBe(0);
    expect(ran.out).toContain('throwaway');

    const link =
      /see it on the local site: cd (\S+) && .* then open (http:\/\/localhost:4321(\/results\/([0-9a-f]{64})\/))/.exec(
        ran.out,
      );
    expect(link, ran.out.slice(-6000)).not.toBeNull();
    expect(link![1]).toBe(repo);
    const page = join(repo, 'site', 'dist', link![3]!, 'index.html');
    expect(existsSync(page), page).toBe(true);
    expect(readFileSync(page, 'utf8')).toContain(link![4]!);
  });
});
