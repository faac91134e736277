// The API checks a parameter the same way on every route that takes it, and its per-network rate limit
// counts API requests, not the site's files (issue 40 item 8).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../dist/index.js';
import { publishingFlags, request, spawnService, tempDbPath } from './fixtures.js';

const FAKE_BUILD = fileURLToPath(new URL('fake-site-build.mjs', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a parameter is checked the same way on every route', () => {
  it('machine=abc is 400 BAD_QUERY on the list and on a cohort alike; a machine key is taken by both', async () => {
    const server = await startServer({ dbPath: tempDbPath() });
    try {
      const api = `${server.url}/api/v1`;
      const cohort = `${api}/cohorts/sha256:${'0'.repeat(64)}`;
      for (const url of [`${api}/results?machine=abc`, `${cohort}?machine=abc`]) {
        const reply = await request(url);
        expect({ status: reply.status, code: reply.json.error?.code }, url).toEqual({
          status: 400,
          code: 'BAD_QUERY',
        });
        expect(reply.json.error?.message, url).toMatch(/is not a machine kind's key: pass machine\.key/);
      }
      const key = encodeURIComponent('m1|x');
      expect((await request(`${api}/results?machine=${key}`)).status).toBe(200);
      expect((await request(`${cohort}?machine=${key}`)).status).toBe(200);
      const long = 'x'.repeat(201);
      for (const url of [`${api}/results?cpuModel=${long}`, `${cohort}?cpuModel=${long}`])
        expect((await request(url)).json.error?.message, url).toMatch(/cpuModel must be 1 to 200 characters/);
    } finally {
      await server.close();
    }
  });
});

describe('the per-network rate limit', () => {
  it("counts API requests, not the site's files: a poller of a page is never 429, and the API still is", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rbdb-limit-'));
    dirs.push(dir);
    const service = await spawnService(
      tempDbPath(),
      [...publishingFlags(join(dir, 'site'), `node ${FAKE_BUILD}`), '--per-ip-per-minute', '5'],
      { env: { FAKE_BUILD_LOG: join(dir, 'builds.log') } },
    );
    // The site's first build: health is API, so it counts; wait on it with the page itself.
    for (;;) {
      const home = await request(`${service.url}/`);
      if (home.status === 200) break;
      expect(home.status).toBe(503);
      await new Promise((r) => setTimeout(r, 20));
    }
    const pages = [];
    for (let i = 0; i < 30; i++) pages.push((await request(`${service.url}/`)).status);
    expect(pages.every((s) => s === 200)).toBe(true);
    const api: number[] = [];
    for (let i = 0; i < 6; i++) api.push((await request(`${service.url}/api/v1/health`)).status);
    expect(api.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(api[5]).toBe(429);
    // Routed as the API, so counted as it, however the URL spells it.
    expect((await request(`${service.url}/%61pi/v1/health`)).status).toBe(429);
    expect((await request(`${service.url}/`)).status).toBe(200);
  });
});
