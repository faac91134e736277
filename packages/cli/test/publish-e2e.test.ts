// Issue 16's end-to-end test: the runner packed and installed from its tarball into an empty directory
// (npm, no native build), `run --submit --server URL` against the publishing service started from its
// own entry point (redis-benchdb-server --site-dir, which builds the real site with Astro), and the
// printed URL followed: the placeholder, then the page, with the result's rank on it. No step has a
// wall-clock limit; vitest's timeout is only the backstop.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_DIR, describeResult, removeTempDirs, runCli, stopServers, testServer } from './helpers/cli.js';
import { PACK_BACKSTOP_MS, packAndInstall, tarball } from './helpers/pack.js';

const SERVER_MAIN = path.resolve(CLI_DIR, '../server/dist/main.js');
const cleanup: string[] = [];
let service: ChildProcess | undefined;

afterAll(async () => {
  if (service?.exitCode === null) {
    const exited = new Promise((r) => service!.once('exit', r));
    service.kill('SIGTERM');
    await exited;
  }
  await stopServers();
  await removeTempDirs();
  await Promise.all(cleanup.splice(0).map((p) => rm(p, { recursive: true, force: true })));
});

/** `redis-benchdb-server --site-dir` from its bin's file; resolves with its URL once it listens. */
function startPublishing(dir: string): Promise<string> {
  if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} is missing: run \`pnpm build\` first`);
  const child = spawn(
    process.execPath,
    [
      SERVER_MAIN,
      '--db',
      path.join(dir, 'service.sqlite'),
      '--port',
      '0',
      '--site-dir',
      path.join(dir, 'site'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  service = child;
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the publishing service exited with ${code}`)));
  });
}

async function get(url: string) {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

describe('run --submit against the publishing service', () => {
  it('the installed runner submits, prints the page URL and rank, and the URL shows the placeholder and then the page', {
    timeout: PACK_BACKSTOP_MS,
  }, async () => {
    const installed = await packAndInstall();
    cleanup.push(installed.root, path.join(CLI_DIR, tarball));
    expect(installed.installLog).not.toMatch(/node-gyp|prebuild-install/);
    expect(existsSync(path.join(installed.dir, 'node_modules/better-sqlite3'))).toBe(false);

    const work = mkdtempSync(path.join(tmpdir(), 'rbdb-publish-e2e-'));
    cleanup.push(work);
    const url = await startPublishing(work);
    const redis = await testServer();
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
        String(redis.port),
        '-q',
        '--submit',
        '--server',
        url,
      ],
      installed.npx,
    );
    expect(r.code, describeResult(r)).toBe(0);
    const out = r.stdout + r.stderr;
    const submitted = /^submitted: ([0-9a-f]{64}) (\S+)$/m.exec(out);
    expect(submitted, out).not.toBeNull();
    const [, id, pageUrl] = submitted!;
    expect(pageUrl).toBe(`${url}/results/${id}/`);
    // The runner's rank line: the only GET result the service has, when the cell may rank at all. A
    // cell that the admission rule leaves out (busy host, client-bound...: a 2-vCPU host often is one)
    // gets "no rank" with its reasons instead, never a bare rank.
    const excluded =
      /^warning (BUSY_HOST|CPU_STEAL|DRIFT|CLIENT_BOUND|IO_THREADS_OVER_CPUS|ERRORS) \(GET\)/m.test(out);
    if (excluded) expect(out).toMatch(/^ {2}no rank: no cell of this run is fit to rank servers by \(.+\)$/m);
    else expect(out).toMatch(/^ {2}GET: the only result of this workload/m);

    // Followed as printed: the placeholder until the build that has it is served, then the page.
    let first: { status: number; text: string } | undefined;
    let page: { status: number; text: string };
    for (;;) {
      page = await get(pageUrl!);
      first ??= page;
      if (page.status === 200) break;
      expect(page.status, page.text).toBe(202);
      await new Promise((r) => setTimeout(r, 250));
    }
    if (first.status === 202) {
      expect(first.text).toContain('Result received');
      expect(first.text).toContain(id);
      expect(first.text).toContain('http-equiv="refresh"');
    }
    expect(page.text).toContain(id);
    expect(page.text).toContain('id="rank"');
    // The page is served first from a build of it alone, which says its ranks are being counted; the
    // whole site's build that follows renders it again with them (docs/DEPLOY.md).
    if (page.text.includes('rank-later')) {
      expect(page.text).toContain('its ranks and similar results are being counted');
      while ((page = await get(pageUrl!)).text.includes('rank-later'))
        await new Promise((r) => setTimeout(r, 250));
      expect(page.status).toBe(200);
    }
    // The page ranks by the same admission rule as the runner.
    if (excluded) expect(page.text).toMatch(/None of this result\S+ headline cells is ranked/);
    else expect(page.text).toContain('the only result with this workload so far');
    const health = (await (await fetch(`${url}/api/v1/health`)).json()) as { results: number; site: object };
    expect(health).toMatchObject({ results: 1, site: { state: 'ready', lastFailure: null } });
  });
});
