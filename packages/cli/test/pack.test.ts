import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ResultV1 } from '@redis-benchdb/result';
import { afterAll, describe, expect, it } from 'vitest';
import { VERSION } from '../src/version.js';
import {
  CLI_DIR,
  describeResult,
  readEnvelope,
  removeTempDirs,
  runCli,
  stopServers,
  tempDir,
  testServer,
} from './helpers/cli.js';

// `npm pack` in packages/cli (prepack bundles with esbuild) must give a tarball that installs and
// runs in an empty directory, with no workspace around it: what `npx redis-benchdb` will get.

const execFileP = promisify(execFile);
const pkg = JSON.parse(readFileSync(path.join(CLI_DIR, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};
const tarball = `${pkg.name}-${pkg.version}.tgz`;
const cleanup: string[] = [];

afterAll(async () => {
  await stopServers();
  await removeTempDirs();
  await Promise.all(cleanup.splice(0).map((p) => rm(p, { recursive: true, force: true })));
});

describe('the npm package', () => {
  it("VERSION in src/version.ts is package.json's version", () => {
    expect(VERSION).toBe(pkg.version);
    expect(pkg.bin['redis-benchdb']).toBe('./bundle/bin.js');
  });

  // better-sqlite3 compiles from source where no prebuilt binary can be fetched: about a minute.
  it('npm pack gives a tarball that installs in an empty directory and runs', {
    timeout: 360_000,
  }, async () => {
    const packed = path.join(CLI_DIR, tarball);
    cleanup.push(packed);
    const { stdout } = await execFileP('npm', ['pack', '--json'], {
      cwd: CLI_DIR,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    expect(info!.filename).toBe(tarball);
    expect(existsSync(packed)).toBe(true);
    // Only the bundle and package.json: the worker is bundled beside the bin.
    expect(info!.files.map((f) => f.path).sort()).toEqual([
      'bundle/bin.js',
      'bundle/worker.js',
      'package.json',
    ]);
    // The private workspace packages are inside the bundle, not dependencies.
    // The registry packages they use (bundle.mjs keeps them external) are.
    expect(Object.keys(pkg.dependencies).sort()).toEqual([
      'ajv',
      'ajv-formats',
      'better-sqlite3',
      'canonicalize',
      'commander',
      'hdr-histogram-js',
      'ioredis',
      'systeminformation',
    ]);
    const bundled = readFileSync(path.join(CLI_DIR, 'bundle/bin.js'), 'utf8');
    expect(bundled.startsWith('#!/usr/bin/env node')).toBe(true);
    expect(bundled).not.toMatch(/from ['"]@redis-benchdb\//);
    // The ingest service is its own bin (packages/server): the runner carries no HTTP framework.
    expect(bundled).not.toMatch(/fastify/);

    const dir = await mkdtemp(path.join(tmpdir(), 'rbdb-pack-'));
    cleanup.push(dir);
    await rename(packed, path.join(dir, tarball));
    await execFileP('npm', ['install', '--no-audit', '--no-fund', `./${tarball}`], {
      cwd: dir,
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const bin = path.join(dir, 'node_modules/.bin/redis-benchdb');
    expect(existsSync(bin)).toBe(true);

    const v = await runCli(['-v'], { cwd: dir, command: [bin] });
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toBe(pkg.version);

    const server = await testServer();
    const r = await runCli(
      ['run', '-t', 'get', '-n', '2000', '-c', '10', '-p', String(server.port), '--json'],
      {
        cwd: dir,
        command: [bin],
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as ResultV1;
    expect(doc.runner.version).toBe(pkg.version);
    expect(doc.target.port).toBe(server.port);
    expect(doc.cells).toHaveLength(1);
    expect(doc.cells[0]).toMatchObject({ test: 'GET', completed: 2000, requested: 2000, incomplete: false });
    expect(doc.cells[0]!.crossCheck.status).toBe('match');
    expect(doc.cells[0]!.latencyUs.p50Us).toBeGreaterThan(0);
    expect(doc.environment.server.version).toBe(server.version);

    // Signing and verifying work from the tarball too (the schemas and ajv are found at run time).
    const out = path.join(await tempDir(), 'r.json');
    const signed = await runCli(
      ['run', '-t', 'get', '-n', '1000', '-c', '5', '-p', String(server.port), '-q', '--out', out],
      { cwd: dir, command: [bin] },
    );
    expect(signed.code, describeResult(signed)).toBe(0);
    const { envelope, payload } = await readEnvelope(out);
    expect(payload.runner.version).toBe(pkg.version);
    const verified = await runCli(['verify', out], { cwd: dir, command: [bin] });
    expect(verified.code, describeResult(verified)).toBe(0);
    expect(verified.stdout).toContain(`ok, signed by ${envelope.keyFingerprint}`);
  });
});
