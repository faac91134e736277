import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../tools/chromium.mjs';
import { serveStatic } from '../tools/serve-static.mjs';
import { buildSite } from './build.js';
import { buildFixture, type Fixture, HOSTILE } from './fixture.js';

// The real site, built by astro from a real SQLite file filled through ingest(), served on
// 127.0.0.1 and read by Debian's Chromium.
let dir: string;
let out: string;
let fx: Fixture;
let server: { url: string; close: () => Promise<void> };
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbdb-site-test-'));
  fx = buildFixture(dir);
  out = join(dir, 'dist');
  // For a static host with every PNG drawn (pnpm site:build --png); pages.test.ts has the default build.
  await buildSite(fx.dbPath, out, { REDIS_BENCHDB_SITE_PNG: 'all' });
  server = await serveStatic(out);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens a page and collects what would mean it is broken or hijacked. */
async function open(
  path: string,
  opts: { js?: boolean } = {},
): Promise<{ page: Page; errors: string[]; dialogs: string[] }> {
  const ctx = await browser.newContext({ javaScriptEnabled: opts.js ?? true });
  const page = await ctx.newPage();
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  const res = await page.goto(server.url + path, { waitUntil: 'networkidle' });
  expect(res?.status(), path).toBe(200);
  return { page, errors, dialogs };
}

describe('every page type', () => {
  const pages = () => [
    '/',
    '/results/',
    `/results/${fx.ids.base}/`,
    `/results/${fx.ids.imported[0]}/`,
    '/machines/',
    '/versions/',
    `/groups/${fx.groupId}/`,
    `/compare/?r=${fx.ids.base.slice(0, 12)},${fx.ids.faster.slice(0, 12)}`,
    `/results/${fx.ids.base}/charts/pipeline.html`,
    '/data/',
  ];

  it('loads with no console errors, and its charts render as SVG with a title', async () => {
    for (const path of pages()) {
      const { page, errors } = await open(path);
      expect(errors, path).toEqual([]);
      const charts = await page.locator('svg[role=img]').count();
      if (path.includes('/results/') && !path.endsWith('/results/')) expect(charts, path).toBeGreaterThan(0);
      for (const title of await page.locator('svg[role=img] > title').allTextContents())
        expect(title.length).toBeGreaterThan(3);
      await page.context().close();
    }
  });

  it('machine and version pages are listed and load', async () => {
    const { page } = await open('/machines/');
    const href = await page.locator('main table a').first().getAttribute('href');
    await page.context().close();
    const m = await open(href!);
    expect(m.errors).toEqual([]);
    expect(await m.page.locator('table.results tbody tr').count()).toBeGreaterThan(0);
    await m.page.context().close();
  });
});

describe('the result page', () => {
  it('shows every cell, the signature, the reproduce line and a raw JSON that is the stored envelope', async () => {
    const { page } = await open(`/results/${fx.ids.base}/`);
    const cells = await page.locator('table.cells tbody tr td:first-child').allTextContents();
    expect(cells).toEqual(['SET', 'GET', 'GET P4', 'GET P16']);
    expect(await page.locator('text=Reproduce: ').textContent()).toContain(
      'redis-benchdb run --profile quick',
    );
    expect(await page.locator('text=verified at build').count()).toBe(1);
    const raw = await page.locator('a', { hasText: 'Raw JSON' }).getAttribute('href');
    const res = await fetch(server.url + raw);
    const env = JSON.parse(await res.text());
    expect(env.schema).toBe('redis-benchdb/envelope.v1');
    await page.context().close();
  });

  it('marks an imported result as such, with its source', async () => {
    const { page } = await open(`/results/${fx.ids.imported[0]}/`);
    expect(await page.locator('.badge.imported').first().isVisible()).toBe(true);
    expect(await page.locator('.imported-note').textContent()).toMatch(/Imported from/);
    await page.context().close();
  });

  it('reads with JavaScript off: numbers, tables and charts are in the HTML', async () => {
    for (const path of ['/', `/results/${fx.ids.base}/`, `/groups/${fx.groupId}/`, '/machines/']) {
      const { page } = await open(path, { js: false });
      if (path.startsWith('/results/')) {
        expect(await page.locator('table.cells td.num').first().textContent()).toMatch(/\d/);
        expect(await page.locator('svg[role=img]').count()).toBeGreaterThan(0);
      }
      expect((await page.locator('main').textContent())!.length).toBeGreaterThan(50);
      await page.context().close();
    }
  });
});

describe('compare', () => {
  it('works by clicks: pick two results on the results page, compare, read ratios', async () => {
    const { page, errors } = await open('/results/');
    await page.check(`input[name=r][value="${fx.ids.faster.slice(0, 12)}"]`);
    await page.check(`input[name=r][value="${fx.ids.base.slice(0, 12)}"]`);
    await page.click('button:has-text("Compare selected")');
    await page.waitForSelector('table.compare-cells');
    const text = await page.locator('table.compare-cells').textContent();
    // One of the two is the baseline (the higher in the list); the other is 2× or 0.5× of it.
    expect(text).toMatch(/(2\.00×|0\.50×)/);
    expect(await page.locator('table.differing').textContent()).toContain('allocator');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('says so when nothing matches', async () => {
    const { page } = await open(
      `/compare/?r=${fx.ids.base.slice(0, 12)},${fx.ids.imported[1]!.slice(0, 12)}`,
    );
    await page.waitForSelector('.no-match');
    expect(await page.locator('.no-match').textContent()).toMatch(/No cells match/);
    await page.context().close();
  });

  it('explains a bad link', async () => {
    const { page } = await open('/compare/?r=zz,12');
    await page.waitForSelector('#compare-out .error');
    expect(await page.locator('#compare-out .error').textContent()).toMatch(/not a result id/);
    await page.context().close();
  });

  it('a run group page compares its members side by side, and the home page lists it', async () => {
    const home = await open('/');
    expect(await home.page.locator(`ul.groups a[href="/groups/${fx.groupId}/"]`).textContent()).toBe(
      'io-threads 1 vs io-threads 2',
    );
    await home.page.context().close();
    const { page } = await open(`/groups/${fx.groupId}/`);
    expect(await page.locator('table.compare-cells').textContent()).toMatch(/1\.30×/);
    expect(await page.locator('svg[role=img]').count()).toBeGreaterThanOrEqual(2);
    await page.context().close();
  });
});

describe('filters', () => {
  it('live in the URL: a shared link shows only the matching results', async () => {
    const { page, errors } = await open('/results/?virt=vm');
    await page.waitForFunction(() =>
      document.querySelector('.filter-status')?.textContent?.includes('match'),
    );
    const ids = await page
      .locator('table.results tbody tr')
      .evaluateAll((rs) => rs.map((r) => (r as HTMLElement).dataset.id));
    expect(ids).toEqual([fx.ids.hostile]);
    expect(await page.locator('select[name=virt]').inputValue()).toBe('vm');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('changing a filter puts it in the URL; "no warnings only" leaves out results with warnings', async () => {
    const { page } = await open('/results/');
    await Promise.all([page.waitForURL(/product=redis/), page.selectOption('select[name=product]', 'redis')]);
    await Promise.all([page.waitForURL(/clean=1/), page.check('input[name=clean]')]);
    await page.waitForFunction(() =>
      document.querySelector('.filter-status')?.textContent?.includes('match'),
    );
    const shown = await page.locator('table.results tbody tr').count();
    // The fixture's signed results carry the example's warnings; the imported ones carry none.
    expect(shown).toBe(2);
    expect(await page.locator('table.results .badge.warn').count()).toBe(0);
    await page.context().close();
  });
});

describe('embeds', () => {
  it('an iframe of a chart renders on its own, with its source line', async () => {
    const { page, errors } = await open(`/results/${fx.ids.base}/`);
    const snippet = await page.locator('#chart-pipeline code.snippet').first().textContent();
    expect(snippet).toMatch(/<iframe src="[^"]+\/charts\/pipeline\.html"/);
    // The snippet names the public origin; host it here and load it in a page of its own.
    const html = `<!doctype html><title>blog</title><h1>My post</h1>${snippet!.replace(/https?:\/\/[^/"]+/, server.url)}`;
    await page.setContent(html);
    const frame = page.frameLocator('iframe');
    // The drawing for the iframe's width: it holds a wide and a narrow one, and shows one.
    await frame.locator('svg[role=img]:visible').waitFor();
    expect(await frame.locator('svg[role=img]:visible').count()).toBe(1);
    expect(await frame.locator('.source').textContent()).toContain(fx.ids.base.slice(0, 12));
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('the SVG and PNG files exist for every chart on a result page', async () => {
    const { page } = await open(`/results/${fx.ids.base}/`);
    const ids = await page
      .locator('figure.chart')
      .evaluateAll((fs) => fs.map((f) => (f as HTMLElement).dataset.chart));
    expect(ids.length).toBeGreaterThan(1);
    for (const id of ids) {
      const svg = await fetch(`${server.url}/results/${fx.ids.base}/charts/${id}.svg`);
      expect(svg.headers.get('content-type')).toBe('image/svg+xml');
      expect(await svg.text()).toContain('Source: redis-benchdb');
      const png = Buffer.from(
        await (await fetch(`${server.url}/results/${fx.ids.base}/charts/${id}.png`)).arrayBuffer(),
      );
      expect(png.subarray(1, 4).toString()).toBe('PNG');
    }
    await page.context().close();
  });

  it('result, group and compare pages have Open Graph images', async () => {
    for (const path of [`/results/${fx.ids.base}/`, `/groups/${fx.groupId}/`, '/compare/', '/']) {
      const { page } = await open(path);
      const og = await page.locator('meta[property="og:image"]').getAttribute('content');
      const png = await fetch(server.url + new URL(og!).pathname);
      expect(png.status).toBe(200);
      await page.context().close();
    }
  });
});

describe('hostile metadata', () => {
  // Ten pages one after another: a safety net for a loaded machine, not a time limit on the pages.
  it('shows as text on every page and in every SVG, and no script runs', async () => {
    const paths = [
      '/',
      '/results/',
      `/results/${fx.ids.hostile}/`,
      '/machines/',
      '/versions/',
      `/compare/?r=${fx.ids.hostile.slice(0, 12)},${fx.ids.base.slice(0, 12)}`,
    ];
    const { page: p0 } = await open('/machines/');
    const hostileHrefs = await p0
      .locator('main a', { hasText: 'img src' })
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    await p0.context().close();
    expect(hostileHrefs.length).toBe(1);
    paths.push(hostileHrefs[0]!);
    // The results list filtered to that machine kind (its slug, as the machines page names it).
    paths.push(`/results/?machine=${hostileHrefs[0]!.split('/')[2]}`);
    for (const path of paths) {
      const { page, dialogs, errors } = await open(path);
      await page.waitForTimeout(path.startsWith('/compare/') || path.includes('?machine=') ? 500 : 0);
      expect(dialogs, path).toEqual([]);
      expect(errors, path).toEqual([]);
      expect(await page.locator('img[src=x]').count(), path).toBe(0);
      expect(await page.locator('svg[onload]').count(), path).toBe(0);
      if (!path.startsWith('/versions/'))
        expect(await page.textContent('body'), path).toContain(HOSTILE.cpuModel);
      await page.context().close();
    }
    const { page } = await open(`/results/${fx.ids.hostile}/`);
    expect(await page.textContent('body')).toContain(HOSTILE.version);
    await page.context().close();
    // The standalone SVG files and embed pages too: open them as documents.
    for (const path of [
      `/results/${fx.ids.hostile}/charts/pipeline.svg`,
      `/results/${fx.ids.hostile}/charts/pipeline.html`,
    ]) {
      const { page, dialogs } = await open(path);
      expect(dialogs, path).toEqual([]);
      expect(await page.locator('img').count(), path).toBe(0);
      // A malformed .svg would show Chromium's XML error page instead of the chart.
      expect(await page.locator('parsererror').count(), path).toBe(0);
      expect(await page.locator('svg[role=img]:visible').count(), path).toBe(1);
      expect(await page.textContent(':root'), path).toContain(HOSTILE.cpuModel);
      await page.context().close();
    }
  });
});

describe('open data', () => {
  it('links a JSONL export of every listed result, in monthly parts with their SHA-256, and a SQLite snapshot', async () => {
    const { page } = await open('/data/');
    const index = (await (await fetch(`${server.url}/data/results-parts.json`)).json()) as {
      results: number;
      parts: { file: string; results: number; bytes: number; sha256: string }[];
    };
    expect(index.parts.length).toBeGreaterThan(0);
    const lines: { id: string }[] = [];
    for (const part of index.parts) {
      expect(await page.locator(`a[href="/data/${part.file}"]`).count(), part.file).toBe(1);
      const bytes = Buffer.from(await (await fetch(`${server.url}/data/${part.file}`)).arrayBuffer());
      expect(bytes.length).toBe(part.bytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(part.sha256);
      const partLines = bytes.toString('utf8').trim().split('\n');
      expect(partLines).toHaveLength(part.results);
      lines.push(...partLines.map((l) => JSON.parse(l)));
    }
    expect(index.results).toBe(lines.length);
    expect(lines.map((l) => l.id).sort()).toEqual(
      [fx.ids.base, fx.ids.faster, fx.ids.hostile, fx.ids.groupA, fx.ids.groupB, ...fx.ids.imported].sort(),
    );
    const snap = Buffer.from(await (await fetch(`${server.url}/data/benchdb.sqlite`)).arrayBuffer());
    expect(snap.subarray(0, 15).toString()).toBe('SQLite format 3');
    expect(await page.locator('a[href$=".schema.json"]').count()).toBeGreaterThanOrEqual(2);
    expect(existsSync(join(out, 'data/index.json'))).toBe(true);
    expect(readFileSync(join(out, 'data/index.json'), 'utf8')).not.toContain(fx.ids.retracted);
    expect(existsSync(join(out, 'results', fx.ids.retracted))).toBe(false);
    await page.context().close();
  });
});
