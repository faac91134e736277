import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@redis-benchdb/db';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExploreFixture, type ExploreFixture, OTHER_CPU } from './explore-fixture.js';
import { type ServedSite, serveBuiltSite } from './served-site.js';

// The workload explorer, a result's rank and neighbours, and compare with nothing in common: the real
// site built from a real SQLite file, served on 127.0.0.1, driven in Chromium at a desktop's width
// and a phone's.
let dir: string;
let fx: ExploreFixture;
let site: ServedSite;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbdb-explore-test-'));
  fx = buildExploreFixture(dir);
  // Built for a static host with its PNGs (site:build --png): the view's PNG is a file.
  site = await serveBuiltSite(fx.dbPath, join(dir, 'dist'), { REDIS_BENCHDB_SITE_PNG: 'all' });
});

afterAll(async () => {
  await site?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(path: string, width: number, js = true): Promise<{ page: Page; errors: string[] }> {
  const ctx = await site.browser.newContext({ javaScriptEnabled: js, viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  const res = await page.goto(site.url + path, { waitUntil: 'networkidle' });
  expect(res?.status(), path).toBe(200);
  return { page, errors };
}

/** How far the page is wider than the window: 0 when nothing sticks out sideways. */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The bars' table as text, row by row: server and machine, ops/s, ratio, results, signers. */
async function bars(page: Page) {
  // The script marks the table busy from a pick (the URL changes first) until the new bars are drawn.
  await page.locator('#explore .explore-out:not([aria-busy=true])').waitFor();
  await page.locator('table.explore-bars tbody tr').first().waitFor();
  return page.locator('table.explore-bars tbody tr').evaluateAll((rows) =>
    rows.map((r) => {
      const td = [...r.querySelectorAll('td')].map((c) => c.textContent?.trim() ?? '');
      return {
        key: (r as HTMLElement).dataset.key!,
        who: td[0]!,
        ops: Number(r.querySelector('.figure')!.textContent!.replace(/,/g, '')),
        ratio: td[2]!,
        p50: td[3]!,
        p99: td[4]!,
        results: Number(td[5]),
        signers: Number(td[6]),
      };
    }),
  );
}

const GET_P16 = '?test=GET&pipeline=16&value=256&conns=50&keys=1000000';

describe.each([1280, 390])('at %i px', (width) => {
  it('the explorer by URL shows every server version and machine that ran the workload', async () => {
    const { page, errors } = await open(`/explore/${GET_P16}`, width);
    const rows = await bars(page);
    // Redis 7.4.1 on the Xeon in its default configuration (two results, one key), with libc, with
    // io-threads 2 (each its own configuration, issue 27), 7.2.5 on it, the EPYC VM, the hostile one.
    expect(rows).toHaveLength(6);
    expect(rows.map((r) => r.results).reduce((a, b) => a + b)).toBe(7);
    const pooled = rows.find((r) => r.results === 2)!;
    expect(pooled.who).toMatch(/redis 7\.4\.1.*Xeon/);
    expect(pooled.signers).toBe(1);
    expect(rows.some((r) => r.who.includes(OTHER_CPU))).toBe(true);
    expect(rows[0]!.ratio).toBe('1.00×');
    // A ratio only within one machine kind and configuration; across them, it says so.
    expect(rows.filter((r) => r.ratio === 'machine or configuration differs').length).toBeGreaterThan(0);
    for (const r of rows.slice(1))
      if (r.ratio !== 'machine or configuration differs')
        expect(r.ratio).toBe(`${(r.ops / rows[0]!.ops).toFixed(2)}×`);
    for (const r of rows) expect(`${r.p50} ${r.p99}`).toMatch(/^[\d.]+\u00a0(µs|ms) [\d.]+\u00a0(µs|ms)$/);
    expect(await page.locator('select[name=pipeline]').inputValue()).toBe('16');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('the explorer by clicks: each pick goes into the URL, and a chosen baseline too', async () => {
    const { page, errors } = await open('/explore/', width);
    await bars(page);
    await Promise.all([page.waitForURL(/test=GET/), page.selectOption('select[name=test]', 'GET')]);
    await Promise.all([page.waitForURL(/pipeline=4\b/), page.selectOption('select[name=pipeline]', '4')]);
    await page.locator('main h2', { hasText: 'GET P4' }).waitFor();
    const rows = await bars(page);
    expect(rows).toHaveLength(6);
    // The key space of 1,000 was run by one ad hoc result only, at pipeline 1: picking it moves there.
    await Promise.all([page.waitForURL(/keys=1000\b/), page.selectOption('select[name=keys]', '1000')]);
    expect(page.url()).toMatch(/pipeline=1\b/);
    expect(await bars(page)).toHaveLength(1);
    await page.goBack();
    await page.locator('main h2', { hasText: 'GET P4' }).waitFor();
    // A baseline: the second bar; its ratio becomes 1.00×, and a bar of another kind or configuration gets none.
    const second = (await bars(page))[1]!;
    await Promise.all([
      page.waitForURL(new RegExp(`vs=${second.key}`)),
      page.locator(`tr[data-key="${second.key}"] button.vs`).click(),
    ]);
    const rebased = await bars(page);
    expect(rebased.find((r) => r.key === second.key)!.ratio).toBe('1.00×');
    expect(rebased.some((r) => r.ratio === 'machine or configuration differs')).toBe(true);
    expect(await page.locator('table.explore-bars thead').textContent()).toContain('vs baseline');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("a standard cell's view is a static page that reads without JavaScript, with its chart to embed", async () => {
    const { page } = await open('/explore/get-p16/', width, false);
    const rows = await bars(page);
    expect(rows).toHaveLength(6);
    expect(rows[0]!.ratio).toBe('1.00×');
    expect(await page.locator('form.explore-picker').isVisible()).toBe(false);
    expect(await page.locator('figure.chart svg[role=img]:visible').count()).toBe(1);
    const snippet = await page.locator('figure.chart code.snippet').first().textContent();
    expect(snippet).toMatch(/<iframe src="[^"]+\/live\/explore-[0-9a-f]{16}\.html"/);
    const svg = await page.locator('figure.chart details.embed a', { hasText: 'SVG' }).getAttribute('href');
    expect((await fetch(site.url + svg)).headers.get('content-type')).toBe('image/svg+xml');
    const png = Buffer.from(await (await fetch(site.url + svg!.replace(/\.svg$/, '.png'))).arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.context().close();
    // With JavaScript, the same page gains the picker, and a baseline stays on the static page.
    const js = await open('/explore/get-p16/', width);
    await js.page.locator('select[name=test]').waitFor();
    const key = (await bars(js.page))[2]!.key;
    await Promise.all([
      js.page.waitForURL(new RegExp(`/explore/get-p16/\\?vs=${key}$`)),
      js.page.locator(`tr[data-key="${key}"] button.vs`).click(),
    ]);
    expect(js.errors).toEqual([]);
    await js.page.context().close();
  });

  it("a result's rank agrees with its cohort's figures, and its neighbours' compare links work", async () => {
    // The cohort computed here straight from SQLite: every listed result's GET of the same workload.
    const db = openDatabase(fx.dbPath, { readonly: true });
    const cohort = db.sqlite
      .prepare(
        `SELECT c.result_id AS id, c.ops_median AS ops, r.key_fingerprint AS key FROM cells c JOIN results r ON r.id = c.result_id
          WHERE r.retracted_at IS NULL AND c.workload_fingerprint =
                (SELECT workload_fingerprint FROM cells WHERE result_id = ? AND label = 'GET')`,
      )
      .all(fx.ids.base) as { id: string; ops: number; key: string }[];
    db.close();
    const mine = cohort.find((c) => c.id === fx.ids.base)!.ops;
    const others = cohort.filter((c) => c.id !== fx.ids.base);
    const slower = others.filter((c) => c.ops < mine).length;
    const equal = others.filter((c) => c.ops === mine).length;
    expect(equal).toBe(1); // the run group's first member ran at the same speed: a tie counts half
    const expected = Math.round((100 * (slower + equal / 2)) / others.length);

    const { page, errors } = await open(`/results/${fx.ids.base}/`, width);
    const get = (await page.locator('ul.ranks li').first().textContent())!.replace(/\s+/g, ' ');
    expect(get).toContain(
      `faster than ${expected}% of the ${others.length} other results with this workload`,
    );
    expect(get).toContain(
      `cohort: ${cohort.length} results from ${new Set(cohort.map((c) => c.key)).size} signers`,
    );
    for (const list of ['ul.ranks', 'ul.similar']) {
      const box = (await page.locator(list).boundingBox())!;
      expect(box.x + box.width, list).toBeLessThanOrEqual(width);
    }
    // Same machine kind and version first: the four other results of redis 7.4.1 on the Xeon.
    const similar = await page.locator('ul.similar li').allTextContents();
    expect(similar.length).toBe(5);
    expect(similar.slice(0, 4).every((s) => s.includes('same machine kind and version'))).toBe(true);
    const href = await page.locator('ul.similar li a', { hasText: 'compare' }).first().getAttribute('href');
    expect(href).toMatch(new RegExp(`^/compare/\\?r=${fx.ids.base.slice(0, 12)},[0-9a-f]{12}$`));
    const all = await page.locator('ul.ranks a', { hasText: 'all of them' }).first().getAttribute('href');
    expect(all).toBe('/explore/get/');
    expect(errors).toEqual([]);
    await page.context().close();
    const cmp = await open(href!, width);
    // The newest neighbour is the ad hoc run: no cell in common, so the page names the nearest instead.
    await cmp.page.locator('table.compare-cells, table.nearest').first().waitFor();
    expect(cmp.errors).toEqual([]);
    await cmp.page.context().close();
  });

  it('compare with no cell in common names the nearest workloads and what differs', async () => {
    const { page, errors } = await open(
      `/compare/?r=${fx.ids.base.slice(0, 12)},${fx.more.adhoc.slice(0, 12)}`,
      width,
    );
    await page.locator('table.nearest').waitFor();
    expect(await page.locator('.no-match').textContent()).toMatch(/No cells match/);
    const rows = await page.locator('table.nearest tbody tr').allTextContents();
    // One row per baseline cell, nearest first, three at most.
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/^SETSET k1000 in [0-9a-f]{12}key space: 1M vs 1k$/);
    expect(rows[1]).toMatch(/^GETGET k1000 in [0-9a-f]{12}key space: 1M vs 1k$/);
    expect(rows[2]).toMatch(/^GET P4GET k1000 in [0-9a-f]{12}pipeline depth: 4 vs 1; key space: 1M vs 1k$/);
    // The list fits the window (the rest of the compare page is not this test's).
    // A wide table scrolls inside its own box at a phone's width (issue 28): the box fits the page.
    const box = (await page.locator('.scroll:has(> table.nearest)').boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
