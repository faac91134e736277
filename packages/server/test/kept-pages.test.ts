// Issue 42 item 1: the publishing service renders a result's page once and keeps it. Over the real
// site build (Astro, scripts/site-build.mjs), a new result's build renders its page and no other
// result's, whose files stay the very same (inode and mtime); the kept pages are served, a retracted
// result's goes, and a new template (an upgrade) renders every page again at the service's start.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signRetraction } from '@redis-benchdb/db';
import { afterAll, describe, expect, it } from 'vitest';
import { key, post, request, spawnService, submissions, vouchedDbPath } from './fixtures.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Health {
  building: boolean;
  pending: boolean;
  state: string;
  lastBuildAt: string | null;
}
const health = async (url: string) => ((await request(`${url}/api/v1/health`)).json as { site: Health }).site;

/** Until a build newer than `after` is served and none is due. */
async function built(url: string, after: string | null): Promise<Health> {
  for (;;) {
    const h = await health(url);
    if (!h.building && !h.pending && h.state === 'ready' && h.lastBuildAt !== after) return h;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Result pages the last build rendered, from its log (Astro names each page it writes): the whole
 * site's (build.log), or the one of new result pages alone that comes first (pages-build.log).
 */
function renderedIn(siteDir: string, log = 'build.log'): string[] {
  if (!existsSync(join(siteDir, log))) return [];
  const text = readFileSync(join(siteDir, log), 'utf8');
  return [...text.matchAll(/\/results\/([0-9a-f]{64})\/index\.html/g)].map((m) => m[1]!);
}

const keptFile = (siteDir: string, id: string) => {
  const { template, keys } = JSON.parse(readFileSync(join(siteDir, 'pages/keys.json'), 'utf8'));
  return join(siteDir, 'pages', template, `${id}@${keys[id]}`, 'index.html');
};

describe('kept result pages', () => {
  it('a new result renders its own page only; the others are kept as they were, served, and a retracted one goes', {
    timeout: 900_000,
  }, async () => {
    const work = mkdtempSync(join(tmpdir(), 'rbdb-kept-pages-'));
    dirs.push(work);
    const siteDir = join(work, 'site');
    // A folder of the operator's where the kept pages go: the service removes only folders it made.
    mkdirSync(join(siteDir, 'pages/mine'), { recursive: true });
    writeFileSync(join(siteDir, 'pages/mine/notes.txt'), 'mine');
    const dbPath = vouchedDbPath();
    const args = ['--site-dir', siteDir, '--site-debounce', '50'];
    let service = await spawnService(dbPath, args);
    let h = await built(service.url, null);
    const [a, b, c] = submissions(3);
    const ids: string[] = [];
    for (const body of [a!, b!])
      ids.push(((await post(`${service.url}/api/v1/results`, body)).json as { id: string }).id);
    h = await built(service.url, h.lastBuildAt);
    // Rendered first alone, under a placeholder key, then once more by the whole site's build with
    // their keys (frozen-pages.ts): a new result can change other results' keys, which only it reads.
    expect(new Set(renderedIn(siteDir, 'pages-build.log'))).toEqual(new Set(ids));
    expect(new Set(renderedIn(siteDir))).toEqual(new Set(ids));
    const before = ids.map((id) => statSync(keptFile(siteDir, id)));
    // The explorer views a kept page links to: the same again when every page is rendered anew below.
    const explorerLinks = async (id: string) =>
      [...(await request(`${service.url}/results/${id}/`)).text.matchAll(/href="(\/explore\/[^"]*)"/g)].map(
        (m) => m[1],
      );
    const alone = await explorerLinks(ids[0]!);
    // Kept, a page's ranks would grow stale unsaid: it says the day they are of.
    expect((await request(`${service.url}/results/${ids[0]}/`)).text).toMatch(
      /Ranks and similar results as of this page's build, built on \d{4}-\d\d-\d\d/,
    );
    expect(alone.length).toBeGreaterThan(0);

    const third = ((await post(`${service.url}/api/v1/results`, c!)).json as { id: string }).id;
    h = await built(service.url, h.lastBuildAt);
    // Only its page was rendered, by a build of it alone that came first and was served before the
    // whole site's build (which rendered it again with its key); the others' files are the same files.
    expect(renderedIn(siteDir, 'pages-build.log')).toEqual([third]);
    expect(renderedIn(siteDir)).toEqual([third]);
    const log = service.stderr();
    const live = log.indexOf('site: 1 new result page(s) live');
    expect(live).toBeGreaterThan(-1);
    expect(log.indexOf('site: built in', live)).toBeGreaterThan(live);
    ids.forEach((id, i) => {
      const now = statSync(keptFile(siteDir, id));
      expect({ ino: now.ino, mtime: now.mtimeMs }, id).toEqual({
        ino: before[i]!.ino,
        mtime: before[i]!.mtimeMs,
      });
    });
    for (const id of [...ids, third]) {
      const page = await request(`${service.url}/results/${id}/`);
      expect(page.status, id).toBe(200);
      // Rendered again by the whole site's build: its ranks are counted, no longer "being counted".
      expect(page.text).not.toContain('rank-later');
      expect(page.text).toContain('Ranks and similar results as of');
      expect(page.text).toMatch(new RegExp(`result <code[^>]*>${id}</code>`));
      // A kept page's other files are served too, and its address without the slash is sent to it.
      expect((await request(`${service.url}/results/${id}/raw.json`)).status).toBe(200);
      // Its card is drawn from the kept SVG when first asked for (png-on-request.ts).
      const card = await fetch(`${service.url}/results/${id}/og.png`);
      expect({ status: card.status, type: card.headers.get('content-type') }).toEqual({
        status: 200,
        type: 'image/png',
      });
      await card.arrayBuffer();
      const bare = await request(`${service.url}/results/${id}`, { redirect: 'manual' });
      expect(bare.headers.get('location')).toBe(`/results/${id}/`);
    }
    // The served build's own folder holds no result page: they are all kept apart.
    expect(() => statSync(join(siteDir, 'current/results', ids[0]!))).toThrow();

    // Retracted: its page is gone with the next build; the others are still served.
    const retraction = signRetraction(third, key.privateKeyPem, new Date(), { origin: service.url });
    expect(
      (await post(`${service.url}/api/v1/results/${third}/retract`, JSON.stringify(retraction))).status,
    ).toBe(200);
    h = await built(service.url, h.lastBuildAt);
    expect(renderedIn(siteDir, 'pages-build.log')).toEqual([]);
    expect(renderedIn(siteDir)).toEqual([]);
    expect((await request(`${service.url}/results/${third}/`)).status).toBe(404);
    expect((await request(`${service.url}/results/${ids[0]}/`)).status).toBe(200);

    // An upgrade (new templates): the service's start renders every page again, while serving the old.
    service.child.kill('SIGTERM');
    await service.exited;
    service = await spawnService(dbPath, args, { env: { REDIS_BENCHDB_SITE_TEMPLATE: 'next-version' } });
    expect((await request(`${service.url}/results/${ids[0]}/`)).status).toBe(200);
    h = await built(service.url, h.lastBuildAt);
    // Under new templates a build of result pages alone renders none: the whole site's build does.
    expect(renderedIn(siteDir, 'pages-build.log')).toEqual([]);
    expect(new Set(renderedIn(siteDir))).toEqual(new Set(ids));
    expect(keptFile(siteDir, ids[0]!)).toContain('/pages/next-version/');
    for (const id of ids) expect((await request(`${service.url}/results/${id}/`)).status).toBe(200);
    expect(await explorerLinks(ids[0]!)).toEqual(alone);
    // Old templates' folders go (one swap later, for requests under way); the operator's folder stays.
    expect(readFileSync(join(siteDir, 'pages/mine/notes.txt'), 'utf8')).toBe('mine');
  });
});
