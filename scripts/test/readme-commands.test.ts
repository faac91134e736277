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

/**
 * The machine's certificate trust, which a new user's login has too: the official Node binaries (as
 * CI runs them) trust only their own CA bundle, where Debian's Node reads the system's, so a proxy's
 * CA that the machine trusts reaches them through these.
 */
const TRUST = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTPS_PROXY',
  'https_proxy',
  'NO_PROXY',
  'no_proxy',
];
const trust = Object.fromEntries(TRUST.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));

/** Run a shell command with only PATH, the machine's trust and an empty HOME, as a new user's login would have. */
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
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...trust, ...extra },
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
    // A guard against a hang only: an install from an empty store, then the run and two builds.
    timeout: 60 * 60_000,
  }, async () => {
    const [install, ...rest] = firstCommand.split(' && ');
    expect(install).toBe('npx -y pnpm@9 install');
    expect(rest.length).toBeGreaterThan(0);
    expect(shortRun).not.toBe('');
    const home = join(root, 'home');
    const repo = join(root, 'repo');
    spawnSync('mkdir', ['-p', home]);
    const cloned = spawnSync('git', ['clone', '--quiet', ROOT, repo], { encoding: 'utf8' });
    expect(cloned.status, cloned.stderr).toBe(0);

    const installed = await sh(install!, repo, home);
    expect(installed.code, installed.out.slice(-4000)).toBe(0);
    // better-sqlite3 13 carries its binaries: nothing is compiled, and node-gyp is not even started.
    expect(installed.out).not.toMatch(/node-gyp|gyp info|prebuild-install/);

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

    // The screen ends on the answer: the newest result, its address, and the command that serves it.
    const [summary, address, serve] = ran.out.trimEnd().split('\n').slice(-3);
    expect(summary, ran.out.slice(-3000)).toMatch(/^newest result: \S/);
    const link = /^ {2}(http:\/\/localhost:4321(\/results\/([0-9a-f]{64})\/))$/.exec(address ?? '');
    expect(link, ran.out.slice(-3000)).not.toBeNull();
    // pnpm as the README called it: through npx, unless npx found a pnpm 9 already on PATH (a
    // contributor's global install), which it then runs and the line names; either pastes as is.
    const served = /^serve it: (npx -y pnpm@9|pnpm) site:preview$/.exec(serve ?? '');
    expect(served, serve).not.toBeNull();
    if (served![1] === 'pnpm') {
      const onPath = spawnSync('bash', ['-c', 'command -v pnpm'], { env: { PATH: process.env.PATH ?? '' } });
      expect(onPath.status, 'the line says pnpm, but no pnpm is on PATH').toBe(0);
    }
    const page = join(repo, 'site', 'dist', link![2]!, 'index.html');
    expect(existsSync(page), page).toBe(true);
    expect(readFileSync(page, 'utf8')).toContain(link![3]!);
    // Astro's own log went to its file.
    expect(ran.out).not.toContain('[build] Complete!');
    const log = /Astro's log: (\S+)$/m.exec(ran.out)?.[1];
    expect(log, ran.out.slice(-3000)).toMatch(
      /\/\.local\/state\/redis-benchdb\/site-build\/dist-[0-9a-f]{8}\.log$/,
    );
    expect(readFileSync(log!, 'utf8')).toContain('[build] Complete!');
    expect(existsSync(join(repo, 'site', 'dist-build.log'))).toBe(false);
  });
});
