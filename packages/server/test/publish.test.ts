// The publishing service (--site-dir): the site on the API's origin, rebuilt after new results one build
// at a time, a placeholder until a result's page is built, a failed build kept out of sight, and state
// in health. The site build is a real child process (fake-site-build.mjs: the real one, Astro, is the
// CLI's end-to-end test); the gate file holds a build open so a test can send results during it.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseServerArgs } from '../src/index.js';
import { post, request, spawnService, submissions, tempDbPath } from './fixtures.js';

const FAKE_BUILD = fileURLToPath(new URL('fake-site-build.mjs', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface SiteHealth {
  state: string;
  building: boolean;
  pending: boolean;
  lastBuildAt: string | null;
  lastBuildMs: number | null;
  lastFailureAt: string | null;
  lastFailure: string | null;
}

async function site(url: string): Promise<SiteHealth> {
  return ((await request(`${url}/api/v1/health`)).json as { site: SiteHealth }).site;
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const settled = (url: string) =>
  until(
    () => site(url),
    (s) => !s.building && !s.pending && s.state !== 'none',
  );

/** A publishing service over a new database, its build held at the gate until `open()`. */
async function publishing() {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-publish-'));
  dirs.push(dir);
  const files = { log: join(dir, 'builds.log'), gate: join(dir, 'gate'), fail: join(dir, 'fail') };
  writeFileSync(files.gate, '');
  const dbPath = tempDbPath();
  const args = [
    '--site-dir',
    join(dir, 'site'),
    '--site-build',
    `node ${FAKE_BUILD}`,
    '--site-debounce',
    '50',
  ];
  const env = { FAKE_BUILD_LOG: files.log, FAKE_BUILD_GATE: files.gate, FAKE_BUILD_FAIL: files.fail };
  const start = () => spawnService(dbPath, args, { env });
  const builds = () =>
    existsSync(files.log) ? readFileSync(files.log, 'utf8').match(/^start/gm)?.length : 0;
  return { dir, files, start, builds };
}

describe('the publishing service', () => {
  it('serves the site on its own origin; a new page is a placeholder until the build that has it, and results sent during a build make one build after it', async () => {
    const p = await publishing();
    const service = await p.start();
    const first = await settled(service.url);
    expect(first).toMatchObject({ state: 'ready', lastFailure: null, lastFailureAt: null });
    expect(p.builds()).toBe(1);
    const home = await request(`${service.url}/`);
    expect(home.status).toBe(200);
    expect(home.text).toContain(`0 results, site ${service.url}`);
    // The builder's own marker sits in the served directory, and is not a page (issue 30 item 10).
    expect(existsSync(join(p.dir, 'site/current/.redis-benchdb-build.json'))).toBe(true);
    for (const path of [
      '/.redis-benchdb-build.json',
      '/%2eredis-benchdb-build.json',
      '/x/../.redis-benchdb-build.json',
    ])
      expect((await request(`${service.url}${path}`)).status, path).toBe(404);

    const [a, b, c] = submissions(3);
    rmSync(p.files.gate);
    const stored = await post(`${service.url}/api/v1/results`, a!);
    expect(stored.status).toBe(201);
    const { id, pagePath } = stored.json as { id: string; pagePath: string };
    await until(
      () => site(service.url),
      (s) => s.building,
    );

    const waiting = await request(`${service.url}${pagePath}`);
    expect(waiting.status).toBe(202);
    expect(waiting.headers.get('content-type')).toContain('text/html');
    expect(waiting.text).toContain('Result received');
    expect(waiting.text).toContain(id);
    expect(waiting.text).toMatch(/<meta http-equiv="refresh" content="\d+">/);
    // The first build's duration says when: the build under way started after the result was stored.
    expect(waiting.text).toMatch(/should appear by \d{4}-\d\d-\d\dT/);

    // Two more while that build is held open: they wait for one build after it, not two.
    for (const body of [b!, c!]) expect((await post(`${service.url}/api/v1/results`, body)).status).toBe(201);
    expect(await site(service.url)).toMatchObject({ building: true, pending: true });
    writeFileSync(p.files.gate, '');
    const done = await settled(service.url);
    expect(done.state).toBe('ready');
    expect(p.builds()).toBe(3);
    expect(readFileSync(p.files.log, 'utf8').trim().split('\n').at(-1)).toBe('built 3');

    const page = await request(`${service.url}${pagePath}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<h1>${id}</h1>`);
    expect(
      (await request(`${service.url}${pagePath.slice(0, -1)}`, { redirect: 'manual' })).headers.get(
        'location',
      ),
    ).toBe(pagePath);
    expect((await request(`${service.url}/results/${'0'.repeat(64)}/`)).status).toBe(404);
    const api404 = await request(`${service.url}/api/v1/nothing`);
    expect(api404.status).toBe(404);
    expect(api404.json).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect((await request(`${service.url}/%2e%2e/%2e%2e/etc/passwd`)).status).toBe(404);

    // A restart over the same database and site serves the site built, and builds nothing.
    service.child.kill('SIGTERM');
    await service.exited;
    const again = await p.start();
    expect(await settled(again.url)).toMatchObject({ state: 'ready', lastBuildAt: done.lastBuildAt });
    expect(p.builds()).toBe(3);
    expect((await request(`${again.url}${pagePath}`)).status).toBe(200);
  });

  it('removes only builds of its own from the site folder: a folder it did not make is kept', async () => {
    const p = await publishing();
    const service = await p.start();
    await settled(service.url);
    // Someone's folder under builds/, with no build marker in it.
    const mine = join(p.dir, 'site/builds/notes');
    mkdirSync(mine);
    writeFileSync(join(mine, 'thesis.txt'), 'mine');
    for (const [i, body] of submissions(2).entries()) {
      expect((await post(`${service.url}/api/v1/results`, body)).status).toBe(201);
      await until(
        () => site(service.url),
        (s) => !s.building && !s.pending && (p.builds() ?? 0) >= 2 + i,
      );
    }
    await settled(service.url);
    expect(p.builds()).toBeGreaterThanOrEqual(3);
    expect(readFileSync(join(mine, 'thesis.txt'), 'utf8')).toBe('mine');
    // Its own old builds still go: the one served and the one before it stay.
    expect(readdirSync(join(p.dir, 'site/builds')).filter((n) => n !== 'notes')).toHaveLength(2);
    service.child.kill('SIGTERM');
    await service.exited;
  });

  it("draws a chart's PNG from its SVG when first asked for, keeps it, and serves nothing outside the site", async () => {
    const p = await publishing();
    const service = await p.start();
    await settled(service.url);
    const { pagePath } = (await post(`${service.url}/api/v1/results`, submissions(1)[0]!)).json as {
      pagePath: string;
    };
    await until(
      () => request(`${service.url}${pagePath}`),
      (r) => r.status === 200,
    );
    const chart = `${service.url}${pagePath}charts/pipeline`;
    expect(existsSync(join(p.dir, 'site/current', pagePath, 'charts/pipeline.png'))).toBe(false);
    const first = await fetch(`${chart}.png`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await first.arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // IHDR: drawn at the charts' PNG width, 600, whatever the SVG's own (640 x 300).
    expect(png.readUInt32BE(16)).toBe(600);
    expect(png.readUInt32BE(20)).toBe(281);
    const cached = readdirSync(join(p.dir, 'site/png-cache'));
    expect(cached).toHaveLength(1);
    expect(Buffer.from(await (await fetch(`${chart}.png`)).arrayBuffer())).toEqual(png);
    expect(readdirSync(join(p.dir, 'site/png-cache'))).toEqual(cached);
    // No SVG, no PNG; and no path out of the site, however spelled.
    for (const path of [
      `${pagePath}charts/latency.png`,
      '/%2e%2e/png-cache/x.png',
      `${pagePath}charts/..%2f..%2f..%2f..%2fpng-cache%2f${cached[0]}`,
      `/..%2f${cached[0]}`,
      '/.hidden/x.png',
    ])
      expect((await request(`${service.url}${path}`)).status, path).toBe(404);
  });

  it('a failed build keeps the previous site; health says so, without the log, until a build succeeds, and the operator has the log', async () => {
    const p = await publishing();
    const service = await p.start();
    await settled(service.url);
    const [a, b] = submissions(2);
    writeFileSync(p.files.fail, '');
    const { pagePath } = (await post(`${service.url}/api/v1/results`, a!)).json as { pagePath: string };
    const failed = await settled(service.url);
    expect(failed).toMatchObject({ state: 'failed', lastFailure: 'the site build exited with code 3' });
    expect(Date.parse(failed.lastFailureAt!)).toBeGreaterThan(Date.parse(failed.lastBuildAt!));
    const health = await request(`${service.url}/api/v1/health`);
    expect(health.json).toMatchObject({ ok: true, results: 1 });
    // Health is public: none of the build's output, and no path of the service's files.
    expect(health.text).not.toContain('told to fail');
    expect(health.text).not.toContain(p.dir);
    // The operator has it: on stderr, and in a file of the site directory that is not served.
    expect(service.stderr()).toContain('the site build exited with code 3');
    expect(service.stderr()).toContain(`fake build: told to fail, writing ${p.dir}`);
    expect(readFileSync(join(p.dir, 'site/failed-build.log'), 'utf8')).toContain('told to fail');
    for (const path of ['/failed-build.log', '/build.log', '/..%2ffailed-build.log', '/../build.log'])
      expect((await request(`${service.url}${path}`)).status, path).toBe(404);
    expect((await request(`${service.url}/`)).text).toContain('0 results');
    const waiting = await request(`${service.url}${pagePath}`);
    expect(waiting.status).toBe(202);
    expect(waiting.text).toContain('The last build of the site failed');
    expect(
      existsSync(join(p.dir, 'site/builds')) && readFileSync(join(p.dir, 'site/build.log'), 'utf8'),
    ).toContain('told to fail');

    rmSync(p.files.fail);
    expect((await post(`${service.url}/api/v1/results`, b!)).status).toBe(201);
    expect(await settled(service.url)).toMatchObject({
      state: 'ready',
      lastFailure: null,
      lastFailureAt: null,
    });
    // The failed build's log outlives the build after it, for an operator who looks later.
    expect(readFileSync(join(p.dir, 'site/failed-build.log'), 'utf8')).toContain('told to fail');
    expect((await request(`${service.url}${pagePath}`)).status).toBe(200);
    expect((await request(`${service.url}/`)).text).toContain('2 results');
  });
});

describe('parseServerArgs, publishing flags', () => {
  it('takes the site and backup flags', () => {
    const parsed = parseServerArgs(
      '--site-dir s --site-build x --site-url https://e.org/ --site-debounce 10 --backup-dir b --backup-every-min 5 --backup-keep 3'.split(
        ' ',
      ),
      {},
    );
    expect(parsed.help === false && parsed.options).toMatchObject({
      site: { dir: 's', build: 'x', url: 'https://e.org', debounceMs: 10 },
      backup: { dir: 'b', intervalMs: 300_000, keep: 3 },
    });
  });

  it.each([
    [['--site-build', 'x'], /--site-build needs --site-dir DIR/],
    [['--backup-keep', '2'], /--backup-keep needs --backup-dir DIR/],
    [
      ['--backup-dir', 'b', '--backup-every-min', '0'],
      /--backup-every-min: 0 \(a whole number, at least 1\)/,
    ],
  ])('refuses %j', (argv, message) => {
    expect(() => parseServerArgs(argv, {})).toThrow(message);
  });
});
