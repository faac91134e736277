import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResultV1 } from '@redis-benchdb/result';
import { afterAll, describe, expect, it } from 'vitest';
import { VERSION } from '../src/version.js';
import { CLI_DIR, describeResult, removeTempDirs, runCli, stopServers, testServer } from './helpers/cli.js';
import { PACK_BACKSTOP_MS, packAndInstall, pkg, tarball } from './helpers/pack.js';

// `npm pack` in packages/cli (prepack bundles with esbuild) must give a tarball that installs in an
// empty directory, with an empty home directory and npm cache and no workspace around it, compiles
// nothing (better-sqlite3 is only an optional peer), and whose every printed hint works when an npx
// user pastes it. No step has a wall-clock limit: each waits for its process (the machine may be
// busy); vitest's timeout is only the backstop.

const cleanup: string[] = [];

afterAll(async () => {
  await stopServers();
  await removeTempDirs();
  await Promise.all(cleanup.splice(0).map((p) => rm(p, { recursive: true, force: true })));
});

/** Every file under `dir` whose name ends with `suffix` (a compiled addon is a .node file). */
function filesEnding(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith(suffix));
}

describe('the npm package', () => {
  it("VERSION in src/version.ts is package.json's version; better-sqlite3 is an optional peer only", () => {
    expect(VERSION).toBe(pkg.version);
    expect(pkg.bin['redis-benchdb']).toBe('bundle/bin.js');
    expect(Object.keys(pkg.dependencies).sort()).toEqual([
      'ajv',
      'ajv-formats',
      'canonicalize',
      'commander',
      'hdr-histogram-js',
      'ioredis',
      'systeminformation',
    ]);
    expect(pkg.peerDependencies['better-sqlite3']).toBeDefined();
    expect(pkg.peerDependenciesMeta['better-sqlite3']?.optional).toBe(true);
  });

  it('npm publish --dry-run passes with no warning: a README, a license, repository and engines', {
    timeout: PACK_BACKSTOP_MS,
  }, async () => {
    expect(pkg.license).toBe('MIT');
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\//);
    // commander 15 needs 22.12; better-sqlite3 13 (the optional peer) needs 22.
    expect(pkg.engines?.node).toBe('>=22.12');
    // A token that is never sent (a dry run): without one npm warns that it would need a login.
    const home = mkdtempSync(path.join(tmpdir(), 'rbdb-publish-'));
    cleanup.push(home);
    const npmrc = path.join(home, '.npmrc');
    writeFileSync(npmrc, '//registry.npmjs.org/:_authToken=dry-run-only\n');
    // The bundle first, as a release does (`npm run prepack`): npm checks the bin's file before its
    // prepack script would write it, and warns on a clean clone that has no bundle/ yet.
    const bundled = spawnSync(process.execPath, ['bundle.mjs'], { cwd: CLI_DIR, encoding: 'utf8' });
    expect(bundled.status, bundled.stderr).toBe(0);
    const r = spawnSync('npm', ['publish', '--dry-run', '--json'], {
      cwd: CLI_DIR,
      env: { ...process.env, HOME: home, npm_config_userconfig: npmrc },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/npm warn/i);
    const out = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as Record<
      string,
      { files: { path: string }[] }
    >;
    const files = out[pkg.name]!.files.map((f) => f.path);
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    cleanup.push(path.join(CLI_DIR, tarball));
  });

  it('installs from the tarball with no native build, runs, and every hint it prints works', {
    timeout: PACK_BACKSTOP_MS,
  }, async () => {
    const installed = await packAndInstall();
    const { root, dir, home, packed: info, installLog } = installed;
    cleanup.push(root, path.join(CLI_DIR, tarball));
    expect(info.filename).toBe(tarball);
    expect(info.files.map((f) => f.path).sort()).toEqual([
      'LICENSE',
      'README.md',
      'bundle/bin.js',
      'bundle/worker.js',
      'package.json',
    ]);
    const bundled = readFileSync(path.join(CLI_DIR, 'bundle/bin.js'), 'utf8');
    expect(bundled.startsWith('#!/usr/bin/env node')).toBe(true);
    expect(bundled).not.toMatch(/from ['"]@redis-benchdb\//);
    // No static import of the native module: it is required only when a database is opened.
    expect(bundled).not.toMatch(/from ['"]better-sqlite3['"]/);
    expect(bundled).not.toMatch(/fastify/);
    expect(installLog).not.toMatch(/node-gyp|prebuild-install/);
    expect(existsSync(path.join(dir, 'node_modules/better-sqlite3'))).toBe(false);
    expect(filesEnding(path.join(dir, 'node_modules'), '.node')).toEqual([]);

    // As an npx user runs it: `npx redis-benchdb ...` in that directory.
    const opts = installed.npx;
    const help = await runCli(['--help'], opts);
    expect(help.code, describeResult(help)).toBe(0);
    expect(help.stdout).toContain('view');

    const server = await testServer();
    const out = path.join(root, 'r.json');
    const r = await runCli(
      [
        'run',
        '-t',
        'get',
        '-n',
        '2000',
        '-c',
        '5',
        '-p',
        String(server.port),
        '-q',
        '--out',
        out,
        '--submit',
      ],
      opts,
    );
    // No service is set up and none was named: the result waits in the spool, and the run succeeds.
    expect(r.code, describeResult(r)).toBe(0);
    expect(r.stderr).not.toMatch(/pnpm|site:build/);
    // Without better-sqlite3 the result is kept as a file only.
    expect(r.stderr).not.toContain('stored in');
    const kept = /^kept in (\S+)$/m.exec(r.stderr)?.[1];
    expect(kept, r.stderr).toBe(
      path.join(home, '.local/share/redis-benchdb/results', `${path.basename(kept ?? '')}`),
    );
    expect(existsSync(kept!)).toBe(true);
    const id = path.basename(kept!, '.json');
    const shell = (hint: string) => runCli([], { ...opts, command: ['bash', '-c', hint] });

    // Hint: look at it (view writes a page and prints its file URL).
    const viewHint = /^look at it: (npx redis-benchdb view [0-9a-f]{64})/m.exec(r.stderr)?.[1];
    expect(viewHint, r.stderr).toBe(`npx redis-benchdb view ${id}`);
    const viewed = await shell(viewHint!);
    expect(viewed.code, describeResult(viewed)).toBe(0);
    const url = /^open it in a browser: (file:\S+)$/m.exec(viewed.stdout)?.[1];
    const page = readFileSync(fileURLToPath(url!), 'utf8');
    const doc = JSON.parse(JSON.parse(readFileSync(kept!, 'utf8')).payload) as ResultV1;
    expect(page).toContain(id);
    expect(page).toContain('<th scope="row">GET</th>');
    expect(page).toContain((doc.cells[0]!.latencyUs.p50Us / 1000).toFixed(3));
    expect(page).toContain('signature checked');

    // Hint: check the --out file.
    const verifyHint = /check it with: (npx redis-benchdb verify \S+)\)/.exec(r.stderr)?.[1];
    expect(verifyHint, r.stderr).toBe(`npx redis-benchdb verify ${out}`);
    const verified = await shell(verifyHint!);
    expect(verified.code, describeResult(verified)).toBe(0);
    expect(verified.stdout).toContain('ok, signed by');

    // Hint: send it later. Pasted as printed, URL is the word to fill in; without it, it says so.
    const pending = /send it later with (npx redis-benchdb submit --pending --server URL)$/m.exec(
      r.stderr,
    )?.[1];
    expect(pending, r.stderr).toBeDefined();
    expect(r.stderr).toContain('there is no public service yet');
    const spooled = path.join(home, '.local/share/redis-benchdb/spool', `${id}.json`);
    expect(existsSync(spooled)).toBe(true);
    const noServer = await shell(pending!.replace(' --server URL', ''));
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toContain('1 result in');
    expect(noServer.stderr).toContain('there is no public service yet');
    expect(existsSync(spooled)).toBe(true); // nothing lost

    // Hint: replace the signing key (run made one); keygen refuses to overwrite it and says how.
    const keygen = await runCli(['keygen'], opts);
    expect(keygen.code, describeResult(keygen)).toBe(1);
    const force = /To replace it anyway: (npx redis-benchdb keygen --force)$/m.exec(keygen.stderr)?.[1];
    expect(force, keygen.stderr).toBeDefined();
    const forced = await shell(force!);
    expect(forced.code, describeResult(forced)).toBe(0);

    // What needs SQLite says so, and how to add it, instead of failing at start-up.
    const exported = await runCli(['export', '--jsonl'], opts);
    expect(exported.code, describeResult(exported)).toBe(1);
    expect(exported.stderr).toContain('needs the local SQLite database');
    expect(exported.stderr).toContain(
      'install it in this project (npm install better-sqlite3), then run npx redis-benchdb export --jsonl ... again',
    );
  });
});
