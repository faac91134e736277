import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CellBar, cellsChart } from '../src/lib/charts/cells.js';
import type { Chart } from '../src/lib/charts/render.js';
import { sweepChart } from '../src/lib/charts/sweep.js';
import { type EmbedTarget, embedPage, embedSnippets } from '../src/lib/embeds/embed.js';
import { launchChromium } from '../tools/chromium.mjs';

// Issue 41: the README's iframe snippet, pasted as it stands into a blog column of 320, 390, 720 and
// 1280 px with scripts off (many blog platforms strip them), shows the whole chart and its source line
// inside the frame; and it is the snippet the site's Embed box gives.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SNIPPET = /^<iframe src="https:\/\/SITE\/results\/ID\/charts\/CHART\.html".*<\/iframe>$/m.exec(
  readme,
)?.[0];

const SERIES = ['redis-server 7.2.6', 'redis-server 7.4.1', 'valkey-server 8.0.1'];
const bar = (cell: string, c: number) =>
  SERIES.map(
    (series, i): CellBar => ({
      cell,
      series,
      opsPerSec: 150_000 - c * 30_000 + i * 2_000,
      ci95Low: 146_000 - c * 30_000 + i * 2_000,
      ci95High: 154_000 - c * 30_000 + i * 2_000,
    }),
  );
// A chart of each shape a result page embeds: bars by cell, and a sweep with many legend entries.
const CHARTS: Chart[] = [
  cellsChart(['GET', 'SET', 'LRANGE_100 (first 100 elements of a long list)'].flatMap(bar), {
    id: 'cells',
    title: 'Throughput by cell',
    source: 'test rows',
  }),
  sweepChart(
    SERIES.flatMap((m, i) =>
      [1, 4, 16, 64, 256].flatMap((x) =>
        ['GET', 'SET'].map((cmd) => {
          const ops = 120_000 * Math.min(x, 6) ** 0.9 + i * 9_000;
          return {
            series: `${m} · ${cmd}`,
            x,
            opsPerSec: ops,
            ci95Low: ops * 0.97,
            ci95High: ops * 1.03,
            cellLabel: '',
          };
        }),
      ),
    ),
    { axis: 'pipeline', title: 'Throughput by pipeline depth', source: 'test rows' },
  ),
];
const target = (chart: Chart, pagePath: string): EmbedTarget => ({
  chart,
  pagePath,
  svgPath: pagePath.replace(/\.html$/, '.svg'),
  pngPath: null,
  sourcePath: '/results/ID/',
  source: 'redis-server 7.2.6 vs valkey-server 8.0.1 on AMD EPYC 7B13, a run group of 3 (1 signer)',
  freshness: 'frozen: a result never changes',
  asOf: 'as of 2026-12-01',
});

let browser: Browser;
let server: Server;
let origin = '';
const files = new Map<string, string>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  process.env.REDIS_BENCHDB_SITE_URL = origin;
  for (const chart of CHARTS) {
    const path = `/results/ID/charts/${chart.id}.html`;
    files.set(path, embedPage(target(chart, path)));
  }
  browser = await launchChromium();
});

afterAll(async () => {
  delete process.env.REDIS_BENCHDB_SITE_URL;
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

describe("the README's embed snippet", () => {
  it("is the one the site's Embed box gives, with its placeholders", () => {
    expect(
      SNIPPET,
      'README.md shows an iframe snippet for https://SITE/results/ID/charts/CHART.html',
    ).toBeDefined();
    process.env.REDIS_BENCHDB_SITE_URL = 'https://SITE';
    try {
      const chart = { ...CHARTS[0]!, title: 'TITLE' };
      expect(embedSnippets(target(chart, '/results/ID/charts/CHART.html')).iframe).toBe(SNIPPET);
    } finally {
      process.env.REDIS_BENCHDB_SITE_URL = origin;
    }
  });

  for (const column of [320, 390, 720, 1280])
    it(`pasted into a ${column} px column with scripts off, shows each chart whole and its source line inside the frame`, async () => {
      const posts = CHARTS.map((chart) =>
        SNIPPET!.replace('https://SITE', origin).replace('CHART', chart.id).replace('TITLE', chart.title),
      );
      files.set(
        `/blog-${column}.html`,
        `<!doctype html><meta charset="utf-8"><title>post</title><body style="margin:0"><main style="width:${column}px;padding:0">${posts.map((p) => `<p>Words.</p>${p}`).join('')}</main>`,
      );
      const ctx = await browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 1400, height: 900 },
      });
      const page = await ctx.newPage();
      await page.goto(`${origin}/blog-${column}.html`);
      for (const [i, chart] of CHARTS.entries()) {
        const frame = page.locator('iframe').nth(i);
        await frame.scrollIntoViewIfNeeded();
        const box = (await frame.boundingBox())!;
        expect(box.width, 'the frame stays in its column').toBeLessThanOrEqual(column);
        const inner = page.frameLocator('iframe').nth(i);
        const source = inner.locator('figcaption.source');
        await source.waitFor();
        const drawing = inner.locator('svg.chart-svg:visible');
        const view = await inner.locator('body').evaluate(() => ({ w: innerWidth, h: innerHeight }));
        const s = (await source.evaluate((e) => e.getBoundingClientRect().toJSON())) as DOMRect;
        // Every text the drawing holds (ticks, axis labels) where it is drawn, after the scaling.
        const texts = (await drawing.evaluate((svg) =>
          [...svg.querySelectorAll('text')].map((t) => t.getBoundingClientRect().toJSON()),
        )) as DOMRect[];
        const what = `${chart.id} at ${column} px`;
        expect(texts.length, `${what}: the drawing is there`).toBeGreaterThan(5);
        expect(s.bottom, `${what}: the source line is inside the frame`).toBeLessThanOrEqual(view.h + 0.5);
        expect(s.right, `${what}: the source line is inside the frame`).toBeLessThanOrEqual(view.w + 0.5);
        for (const t of texts) {
          expect(t.bottom, `${what}: the drawing ends above the source line`).toBeLessThanOrEqual(
            s.top + 0.5,
          );
          expect(t.right, `${what}: the drawing is inside the frame`).toBeLessThanOrEqual(view.w + 0.5);
        }
      }
      await ctx.close();
    });
});
