import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { iterateSiteResults, openDatabase } from '@redis-benchdb/db';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineSlugOfKey } from '../src/lib/data/data.js';
import { slug } from '../src/lib/routes/routes.js';
import { launchChromium } from '../tools/chromium.mjs';
import { serveStatic } from '../tools/serve-static.mjs';
import { buildSite } from './build.js';
import { buildVersionsFixture, OTHER_MACHINE, VERSIONS, type VersionsFixture } from './versions-fixture.js';

// The version, machine and list pages, and every page kind at a desktop's and a phone's width: the
// real site, built by astro from a SQLite file filled through ingest(), read by Debian's Chromium.
let dir: string;
let fx: VersionsFixture;
let server: { url: string; close: () => Promise<void> };
let browser: Browser;
// Page loads wait on events; on a loaded 2-core machine one can take long.
const WAIT_MS = 120_000;
const WIDTHS = [1280, 390] as const;
// Machine pages are named by machine kind (data.ts machines()): read each kind's slug from the built database.
let MAIN_MACHINE = '';
let OTHER_MACHINE_SLUG = '';
function machineSlugs(dbPath: string): void {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    for (const r of iterateSiteResults(db)) {
      if (r.cpuModel === 'Intel(R) Xeon(R) E-2388G CPU @ 3.20GHz') MAIN_MACHINE = machineSlugOfKey(r);
      if (r.cpuModel === OTHER_MACHINE) OTHER_MACHINE_SLUG = machineSlugOfKey(r);
    }
  } finally {
    db.close();
  }
  expect(MAIN_MACHINE).not.toBe('');
  expect(OTHER_MACHINE_SLUG).not.toBe('');
}
const version = (product: string, v: string) => `/versions/${slug(product, v)}/`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbdb-pages-test-'));
  fx = buildVersionsFixture(dir);
  machineSlugs(fx.dbPath);
  await buildSite(fx.dbPath, join(dir, 'dist'));
  server = await serveStatic(join(dir, 'dist'));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A page at a width, with what would mean it is broken: console errors and uncaught exceptions. */
async function open(path: string, width: number, js = true): Promise<{ page: Page; errors: string[] }> {
  const ctx = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled: js });
  ctx.setDefaultTimeout(WAIT_MS);
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  const res = await page.goto(server.url + path, { waitUntil: 'networkidle' });
  expect(res?.status(), path).toBe(200);
  return { page, errors };
}

/** Opens every folded section (group and version pages fold their details under the first answer), to read what it holds. */
function unfold(page: Page): Promise<void> {
  return page.evaluate(() => {
    for (const d of document.querySelectorAll('details')) d.open = true;
  });
}

const pageKinds = () => [
  '/',
  '/results/',
  `/results/${fx.group[1]}/`,
  `/results/${fx.adHoc}/`,
  `/results/${fx.imported[0]}/`,
  '/machines/',
  `/machines/${MAIN_MACHINE}/`,
  '/versions/',
  version('redis', '7.4.1'),
  `/groups/${fx.groupId}/`,
  `/compare/?r=${fx.group[0]!.slice(0, 12)},${fx.group[1]!.slice(0, 12)}`,
  `/results/${fx.group[1]}/charts/pipeline.html`,
  '/data/',
];

describe('every page kind, at 1280 and 390 px', () => {
  it('fits the width (nothing scrolls sideways but a table or chart in its own box) with no console errors', async () => {
    for (const width of WIDTHS)
      for (const path of pageKinds()) {
        const { page, errors } = await open(path, width);
        const fit = await page.evaluate(() => ({
          scrollWidth: document.scrollingElement!.scrollWidth,
          innerWidth: window.innerWidth,
        }));
        expect(fit.scrollWidth, `${path} at ${width} px`).toBeLessThanOrEqual(fit.innerWidth);
        expect(errors, `${path} at ${width} px`).toEqual([]);
        await page.context().close();
      }
  });
});

/** Each column's version and each row's figures of a version page's side-by-side tables, per machine. */
async function sideBySide(page: Page) {
  return page.locator('section.versions-block').evaluateAll((blocks) =>
    blocks.map((b) => ({
      machine: (b as HTMLElement).dataset.machine,
      config: b.querySelector('h3 .muted')?.textContent ?? '',
      versions: [...b.querySelectorAll('table.versions thead th[data-version]')].map(
        (th) => (th as HTMLElement).dataset.version,
      ),
      rows: [...b.querySelectorAll('table.versions tbody tr')].map((tr) => ({
        cell: (tr as HTMLElement).dataset.cell,
        figures: [...tr.querySelectorAll('td')].map((td) => td.querySelector('.ops')?.textContent ?? null),
      })),
    })),
  );
}

describe('the version page', () => {
  it('sets each version of the machine beside it for every standard cell, one machine and configuration at a time', async () => {
    const all = VERSIONS.map((v) => `${v.product} ${v.version}`);
    for (const v of VERSIONS) {
      const { page } = await open(version(v.product, v.version), 1280);
      await unfold(page);
      const blocks = await sideBySide(page);
      const main = blocks.find((b) => b.machine === MAIN_MACHINE && b.config.includes('io-threads 1'))!;
      expect(main.versions, v.version).toEqual(all);
      expect(main.rows.map((r) => r.cell)).toEqual(['SET', 'GET', 'GET P4', 'GET P16']);
      for (const row of main.rows)
        for (const f of row.figures) expect(f, `${v.version} ${row.cell}`).toMatch(/^\d{1,3}(,\d{3})*$/);
      // The chart of that block draws every other version in every cell.
      const dots = await page
        .locator(
          `section.versions-block[data-machine="${MAIN_MACHINE}"] svg.chart-svg:visible g[aria-label=dot] path`,
        )
        .first()
        .evaluate((c) => c.parentElement!.querySelectorAll('path').length);
      expect(dots).toBe((VERSIONS.length - 1) * 4);
      await page.context().close();
    }
  });

  it('never pools machines or configurations: the other machine and io-threads 2 stand alone', async () => {
    const { page } = await open(version('redis', '7.4.1'), 1280);
    const blocks = await sideBySide(page);
    const other = blocks.filter((b) => b.machine === OTHER_MACHINE_SLUG);
    expect(other.map((b) => b.versions)).toEqual([['redis 7.4.1']]);
    const io2 = blocks.filter((b) => b.config.includes('io-threads 2'));
    expect(io2.map((b) => b.versions)).toEqual([['redis 7.4.1']]);
    // The io-threads 2 run is faster: were it pooled with the group's, the figure would not be its own.
    const own = Number(io2[0]!.rows.find((r) => r.cell === 'GET')!.figures[0]!.replace(/,/g, ''));
    const grouped = blocks.find((b) => b.machine === MAIN_MACHINE && b.config.includes('io-threads 1'))!;
    const groupGet = grouped.rows.find((r) => r.cell === 'GET')!.figures[1]!;
    expect(own).toBeGreaterThan(Number(groupGet.replace(/,/g, '')));
    await page.context().close();
  });

  it('the versions list and the machine page link to each version page', async () => {
    const { page } = await open('/versions/', 1280);
    const hrefs = await page
      .locator('main table a')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    for (const v of VERSIONS) expect(hrefs).toContain(version(v.product, v.version));
    await page.context().close();
    const m = await open(`/machines/${MAIN_MACHINE}/`, 1280);
    const links = await m.page
      .locator('main p a[href^="/versions/"]')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    for (const v of VERSIONS)
      expect(links).toContain(`${version(v.product, v.version)}#machine-${MAIN_MACHINE}`);
    await m.page.context().close();
  });
});

const idsInOrder = (page: Page) =>
  page.locator('table.results tbody tr').evaluateAll((rs) => rs.map((r) => (r as HTMLElement).dataset.id));

describe('sorting', () => {
  it('a machine page sorts its results by a column, both ways, and keeps the order in its URL', async () => {
    const { page, errors } = await open(`/machines/${MAIN_MACHINE}/`, 1280);
    const byGet = [...fx.group, fx.ioThreads2, fx.older];
    const speed = new Map([
      ...VERSIONS.map((v, i) => [fx.group[i]!, v.speed] as const),
      [fx.ioThreads2, 0.7],
      [fx.older, 0.4],
    ]);
    byGet.sort((a, b) => speed.get(b)! - speed.get(a)!);
    await page.locator('table.results th button', { hasText: 'GET ops/s' }).click();
    expect(await idsInOrder(page)).toEqual(byGet);
    expect(page.url()).toContain('sort=get-ops&order=desc');
    await page.locator('table.results th button', { hasText: 'GET ops/s' }).click();
    expect(await idsInOrder(page)).toEqual([...byGet].reverse());
    const shared = page.url();
    await page.context().close();
    const again = await open(shared.replace(server.url, ''), 390);
    expect(await idsInOrder(again.page)).toEqual([...byGet].reverse());
    expect(errors).toEqual([]);
    await again.page.context().close();
  });

  it('the results list sorts every result from its URL, and without JavaScript keeps newest first', async () => {
    const { page, errors } = await open('/results/?sort=get-ops&order=desc', 1280);
    await page.waitForFunction(() =>
      document.querySelector('.filter-status')?.textContent?.includes('highest'),
    );
    const ids = await idsInOrder(page);
    // Results without a baseline GET (the ad hoc run, the published ones) come last.
    expect(ids.slice(-3).sort()).toEqual([fx.adHoc, ...fx.imported].sort());
    const figures = await page
      .locator('table.results tbody tr td:nth-child(5)')
      .evaluateAll((tds) => tds.map((td) => Number(td.textContent!.replace(/,/g, ''))));
    const known = figures.slice(0, -3);
    expect(known).toEqual([...known].sort((a, b) => b - a));
    expect(errors).toEqual([]);
    await page.context().close();
    const off = await open('/results/?sort=get-ops&order=desc', 1280, false);
    const dates = await off.page
      .locator('table.results tbody tr')
      .evaluateAll((rs) => rs.map((r) => (r as HTMLElement).dataset.id));
    expect(dates[0]).not.toBe(ids[0]);
    expect(await off.page.locator('table.results th button').count()).toBe(0);
    await off.page.context().close();
  });
});

describe('a build without --png (the default)', () => {
  it('offers each chart as SVG: no PNG link or file, a Markdown snippet that shows the SVG, and the site card as Open Graph image', async () => {
    for (const path of [`/results/${fx.group[1]}/`, `/groups/${fx.groupId}/`, '/']) {
      const { page } = await open(path, 1280, false);
      const links = await page
        .locator('figure.chart details.embed a')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
      expect(
        links.some((h) => h.endsWith('.svg')),
        path,
      ).toBe(true);
      expect(
        links.filter((h) => h.endsWith('.png')),
        path,
      ).toEqual([]);
      const markdown = await page.locator('figure.chart code.snippet').nth(1).textContent();
      const image = /^\[!\[[^\]]*\]\(([^)]+)\)\]/.exec(markdown!)?.[1];
      expect(image, path).toMatch(/\.svg$/);
      const svg = await fetch(server.url + new URL(image!).pathname);
      expect(svg.headers.get('content-type'), image).toBe('image/svg+xml');
      const og = await page.locator('meta[property="og:image"]').getAttribute('content');
      expect(new URL(og!).pathname, path).toBe('/og.png');
      const card = Buffer.from(await (await fetch(`${server.url}/og.png`)).arrayBuffer());
      expect(card.subarray(1, 4).toString()).toBe('PNG');
      await page.context().close();
    }
    expect(existsSync(join(dir, 'dist', 'results', fx.group[1]!, 'charts', 'pipeline.png'))).toBe(false);
  });
});

describe('charts', () => {
  it('keep every mark inside the plot frame and every label inside the chart, at 1280 and 390 px', async () => {
    const paths = [
      `/results/${fx.group[1]}/`,
      `/groups/${fx.groupId}/`,
      version('redis', '7.4.1'),
      `/machines/${MAIN_MACHINE}/`,
      '/',
    ];
    for (const width of WIDTHS)
      for (const path of paths) {
        const { page } = await open(path, width);
        // A result page folds its charts (issue 28): unfold them, as a reader would, to see them drawn.
        await unfold(page);
        // The drawing shown at this width (a chart holds a wide and a narrow one).
        const problems = await page.locator('svg.chart-svg:visible').evaluateAll((svgs) =>
          svgs.flatMap((svg, n) => {
            const out: string[] = [];
            const frame = svg.querySelector('rect[aria-label=frame]')?.getBoundingClientRect();
            if (!frame) return [`chart ${n}: no plot frame`];
            const box = svg.getBoundingClientRect();
            const inside = (r: DOMRect, f: DOMRect, slack: number) =>
              r.left >= f.left - slack &&
              r.right <= f.right + slack &&
              r.top >= f.top - slack &&
              r.bottom <= f.bottom + slack;
            for (const m of svg.querySelectorAll(
              'g[aria-label=dot] path, g[aria-label=line] path, g[aria-label=rule] line',
            ))
              if (!inside(m.getBoundingClientRect(), frame, 0.5))
                out.push(`chart ${n}: ${m.parentElement!.getAttribute('aria-label')} outside the plot`);
            for (const t of svg.querySelectorAll('text'))
              if (!inside(t.getBoundingClientRect(), box, 1))
                out.push(`chart ${n}: text "${t.textContent}" cut off`);
            return out;
          }),
        );
        expect(problems, `${path} at ${width} px`).toEqual([]);
        expect(await page.locator('svg.chart-svg').count(), path).toBeGreaterThan(0);
        await page.context().close();
      }
  });
});

describe('titles and the reproduce line', () => {
  it('tell apart results of one version on one machine', async () => {
    const titles: string[] = [];
    for (const id of [fx.group[1]!, fx.ioThreads2, fx.older]) {
      const { page } = await open(`/results/${id}/`, 1280);
      titles.push(await page.title());
      await page.context().close();
    }
    expect(new Set(titles).size).toBe(3);
    for (const t of titles)
      expect(t).toMatch(/^Redis 7\.4\.1 on .+ · \d{1,2} \w{3} \d{4} · quick profile · GET [\d.]+k ops\/s/);
  });

  it('an ad hoc run shows the commands that reproduce it, its custom command in full', async () => {
    const { page } = await open(`/results/${fx.adHoc}/`, 390);
    const text = await page.locator('pre.reproduce').textContent();
    expect(text).toContain('npx redis-benchdb run -t get -c 20 --duration 10');
    expect(text).toMatch(/npx redis-benchdb run -c 50 -n 200000 .* HSET __key__ field __data__$/m);
    expect(text).not.toContain('raw JSON');
    // Until the runner is on npm, the page says what to run instead of its published name.
    const note = await page.locator('p.before-published').textContent();
    expect(note?.replace(/\s+/g, ' ')).toContain(
      'in a clone of the repository with pnpm -s redis-benchdb in place of npx redis-benchdb',
    );
    await page.context().close();
  });

  it('an imported result shows its publication date where the source gives one, and says so where not', async () => {
    const dated = await open(`/results/${fx.imported[0]}/`, 1280);
    expect(await dated.page.locator('.imported-note').textContent()).toContain('Published Jul 2013');
    expect(await dated.page.locator('h1').textContent()).toContain('published Jul 2013');
    await dated.page.context().close();
    const undated = await open(`/results/${fx.imported[1]}/`, 1280);
    expect(await undated.page.locator('.imported-note').textContent()).toContain('gives no publication date');
    await undated.page.context().close();
    const list = await open('/results/', 1280);
    const row = list.page.locator(`table.results tr[data-id="${fx.imported[0]}"]`);
    expect(await row.textContent()).toContain('published Jul 2013');
    // Its tests, as the list tells a run of no suite profile apart.
    expect(await row.textContent()).toContain('SET, GET, LPUSH and 1 more');
    await list.page.context().close();
  });
});
