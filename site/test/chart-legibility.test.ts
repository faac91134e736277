import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPngs } from '../integration/png.mjs';
import { type CellBar, cellsChart } from '../src/lib/charts/cells.js';
import { CHART_CSS, type Chart, chartHtml } from '../src/lib/charts/render.js';
import { standaloneSvg } from '../src/lib/charts/standalone.js';
import { sweepChart } from '../src/lib/charts/sweep.js';
import { type RatioPoint, versionsChart } from '../src/lib/charts/versions.js';
import { type EmbedTarget, embedPage, embedSnippets, STANDALONE_PX } from '../src/lib/embeds/embed.js';
import type { SweepPoint } from '../src/lib/model/sweeps.js';
import { launchChromium } from '../tools/chromium.mjs';

// The charts a reader found unreadable on a phone (issue 28), drawn from rows shaped like the
// dataset's (synthetic figures, for this test only) and read back in Chromium: every text at least
// 10 CSS px where it is shown, and no two tick labels of an axis touching. Then the same charts as a
// blog on another origin embeds them: the iframe snippet exactly as offered, and the PNG.
const MEMBERS = ['6.0.20', '6.2.16', '7.0.15', '7.2.6', '7.4.1', '7.9.224 (8.0-m01)'].map(
  (v) => `redis-server ${v}`,
);
MEMBERS.push('valkey-server 7.2.7', 'valkey-server 8.0.1');
const point = (series: string, x: number, ops: number): SweepPoint => ({
  series,
  x,
  opsPerSec: ops,
  ci95Low: ops * 0.97,
  ci95High: ops * 1.03,
  cellLabel: `${series} ${x}`,
});
const CHARTS: Chart[] = [
  sweepChart(
    [64, 256, 1024, 4096, 16384, 65536].flatMap((x) => [
      point('GET', x, 140_000 - x / 2),
      point('SET', x, 130_000 - x / 1.5),
    ]),
    { axis: 'value-size', title: 'Throughput by value size', source: 'test rows' },
  ),
  // A group: 8 members × GET and SET, 16 series, drawn as a panel per command.
  sweepChart(
    MEMBERS.flatMap((m, i) =>
      [1, 4, 16, 64, 256].flatMap((x) => [
        point(`${m} · GET`, x, 130_000 * Math.min(x, 6) ** 0.9 + i * 9_000),
        point(`${m} · SET`, x, 125_000 * Math.min(x, 5) ** 0.9 + i * 8_000),
      ]),
    ),
    { axis: 'pipeline', title: 'Throughput by pipeline depth', source: 'test rows' },
  ),
  cellsChart(
    [
      'GET',
      'LRANGE_100 (first 100 elements of a long list)',
      'Intel(R) Xeon(R) E-2388G CPU @ 3.20GHz (bare-metal) (1 signer)',
    ].flatMap((cell, c) =>
      MEMBERS.map(
        (series, i): CellBar => ({
          cell,
          series,
          opsPerSec: 150_000 - c * 30_000 + i * 2_000,
          ci95Low: 146_000 - c * 30_000 + i * 2_000,
          ci95High: 154_000 - c * 30_000 + i * 2_000,
        }),
      ),
    ),
    { id: 'cells', title: 'Throughput by cell, side by side', source: 'test rows' },
  ),
  versionsChart(
    ['GET', 'SET', 'INCR'].flatMap((cell) =>
      ['7.2.6', '7.4.1'].map(
        (series, i): RatioPoint => ({
          cell,
          series,
          ratio: 0.93 + i * 0.1,
          low: 0.9,
          high: 1.1,
          opsPerSec: 1,
        }),
      ),
    ),
    { id: 'versions', title: 'Against 7.0.15', source: 'test rows', reference: '7.0.15' },
  ),
];

let browser: Browser;
let dir: string;
let site: { url: string; close: () => Promise<void>; files: Map<string, { type: string; body: Buffer }> };
let blog: typeof site;

/** A server on its own port (an origin of its own) serving what the test puts in `files`. */
async function serve(): Promise<typeof site> {
  const files = new Map<string, { type: string; body: Buffer }>();
  const server: Server = createServer((req, res) => {
    const f = files.get(req.url ?? '');
    if (!f) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': f.type }).end(f.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, files, close: () => new Promise((r) => server.close(() => r())) };
}

beforeAll(async () => {
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), 'rbdb-legibility-'));
  site = await serve();
  blog = await serve();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await blog?.close();
  if (dir && !process.env.RBDB_KEEP_TEST_SITE) rmSync(dir, { recursive: true, force: true });
});

/** Every shown chart text's size in CSS px, and the tick labels of each axis that touch. */
async function readCharts(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('svg.chart-svg')]
      .filter((svg) => getComputedStyle(svg).display !== 'none')
      .map((svg) => {
        const scale = svg.getBoundingClientRect().width / (svg as SVGSVGElement).viewBox.baseVal.width;
        const sizes = [...svg.querySelectorAll('text')].map((t) => ({
          text: t.textContent ?? '',
          px: Number.parseFloat(getComputedStyle(t).fontSize) * scale,
        }));
        const touching: string[] = [];
        for (const axis of svg.querySelectorAll('[aria-label$="-axis tick label"]')) {
          const boxes = [...axis.querySelectorAll('text')].map((t) => ({
            t: t.textContent,
            r: t.getBoundingClientRect(),
          }));
          for (const [i, a] of boxes.entries())
            for (const b of boxes.slice(i + 1))
              if (
                a.r.left < b.r.right + 2 &&
                b.r.left < a.r.right + 2 &&
                a.r.top < b.r.bottom &&
                b.r.top < a.r.bottom
              )
                touching.push(`${a.t} / ${b.t}`);
        }
        // No text cut at the drawing's edge: "(1 signer)" at the end of a machine's name carries meaning.
        const box = svg.getBoundingClientRect();
        const cut = [...svg.querySelectorAll('text')]
          .filter((t) => {
            const r = t.getBoundingClientRect();
            return (
              r.left < box.left - 1 ||
              r.right > box.right + 1 ||
              r.top < box.top - 1 ||
              r.bottom > box.bottom + 1
            );
          })
          .map((t) => t.textContent);
        return {
          narrow: svg.classList.contains('chart-narrow'),
          sizes,
          touching,
          cut,
          label: svg.getAttribute('aria-label'),
        };
      }),
  );
}

describe('charts a person can read', () => {
  for (const [width, narrow] of [
    [390, true],
    [1280, false],
  ] as const)
    it(`at ${width} px the ${narrow ? 'narrow' : 'wide'} drawing is shown: text at least 10 CSS px, no tick labels touching`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 844 } });
      // The site's column: the page's padding and at most 1,152 px.
      await page.setContent(
        `<!doctype html><meta name="viewport" content="width=device-width"><style>body{margin:0 auto;padding:0 16px;max-width:1152px;font:16px system-ui}${CHART_CSS}</style>${CHARTS.map((c) => `<figure style="margin:0">${chartHtml(c)}</figure>`).join('')}`,
      );
      const charts = await readCharts(page);
      expect(charts).toHaveLength(CHARTS.length);
      for (const c of charts) {
        expect(c.narrow, c.label!).toBe(narrow);
        for (const s of c.sizes) expect(s.px, `${c.label}: "${s.text}"`).toBeGreaterThanOrEqual(10);
        expect(c.touching, c.label!).toEqual([]);
        expect(c.cut, c.label!).toEqual([]);
      }
      // Every value the sweeps ran is labelled, in both drawings (d3 used to blank 4 KiB and 64 KiB, and 64).
      const labels = charts.flatMap((c) => c.sizes.map((s) => s.text));
      for (const l of ['64 B', '4 KiB', '64 KiB', '64', '256', '1×']) expect(labels, l).toContain(l);
      // At most 8 series in a panel: the group's 16 are 8 members in a panel per command.
      const legendSizes = CHARTS.map((c) => c.series.length);
      for (const n of legendSizes) expect(n).toBeLessThanOrEqual(8);
      await page.close();
    });

  it('each of 8 series has its own colour and its own mark', () => {
    const group = CHARTS[1]!;
    expect(group.series.map((s) => s.name)).toEqual(MEMBERS);
    expect(new Set(group.series.map((s) => s.color)).size).toBe(8);
    expect(new Set(group.series.map((s) => s.mark)).size).toBe(8);
  });
});

describe('embeds that fit, in a blog on another origin', () => {
  const targets = (): EmbedTarget[] =>
    CHARTS.map((chart) => ({
      chart,
      pagePath: `/charts/${chart.id}.html`,
      svgPath: `/charts/${chart.id}.svg`,
      pngPath: `/charts/${chart.id}.png`,
      sourcePath: '/results/x/',
      source: 'run group 5612a9b4fbdc: redis-server 6.0.20 vs valkey-server 8.0.1, AMD EPYC 7B13 (1 signer)',
      freshness: 'frozen: a run group never changes',
      asOf: 'as of 2026-11-25',
    }));

  beforeAll(async () => {
    process.env.REDIS_BENCHDB_SITE_URL = site.url;
    const jobs = [];
    for (const t of targets()) {
      site.files.set(t.pagePath, { type: 'text/html; charset=utf-8', body: Buffer.from(embedPage(t)) });
      const svg = standaloneSvg(t.chart, { text: t.source, url: site.url + t.sourcePath, asOf: t.asOf });
      writeFileSync(join(dir, `${t.chart.id}.svg`), svg);
      jobs.push({
        svgFile: join(dir, `${t.chart.id}.svg`),
        pngFile: join(dir, `${t.chart.id}.png`),
        width: STANDALONE_PX,
      });
    }
    const { failed } = await renderPngs(jobs, join(dir, 'cache'));
    expect(failed).toEqual([]);
    for (const t of targets())
      site.files.set(t.pngPath!, { type: 'image/png', body: readFileSync(join(dir, `${t.chart.id}.png`)) });
    const post = `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>post</title><h1>My benchmark post</h1>${targets()
      .map((t) => {
        const s = embedSnippets(t);
        return `<p>Some words.</p>\n${s.iframe}\n<p>The image:</p>\n${s.img}`;
      })
      .join('\n')}`;
    blog.files.set('/post.html', { type: 'text/html; charset=utf-8', body: Buffer.from(post) });
  });

  for (const width of [1280, 390])
    it(`at ${width} px each iframe fits its chart (nothing clipped, at most 40 px blank) and each PNG reads at 10 px or more`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 844 } });
      await page.goto(`${blog.url}/post.html`);
      const frames = page.locator('iframe');
      expect(await frames.count()).toBe(CHARTS.length);
      for (let i = 0; i < CHARTS.length; i++) {
        const frame = frames.nth(i);
        await frame.scrollIntoViewIfNeeded();
        const inner = page.frameLocator('iframe').nth(i).locator('body');
        await inner.waitFor();
        // The page inside lays itself out to the frame (no script): wait until it has loaded.
        const fit = async () => {
          const box = (await frame.boundingBox())!;
          const content = await inner.evaluate((b) => b.getBoundingClientRect().height);
          return { frame: box.height, content, width: box.width };
        };
        let f = await fit();
        for (let n = 0; n < 200 && !(f.frame >= f.content - 0.5 && f.frame - f.content <= 40); n++) {
          await page.waitForTimeout(25);
          f = await fit();
        }
        expect(f.width, 'no wider than the blog').toBeLessThanOrEqual(width);
        expect(f.frame, `${CHARTS[i]!.id}: clipped`).toBeGreaterThanOrEqual(f.content - 0.5);
        expect(f.frame - f.content, `${CHARTS[i]!.id}: blank below`).toBeLessThanOrEqual(40);
      }
      // The PNG as the image snippet shows it: within the column, and its axis text at least 10 px.
      const imgs = page.locator('img');
      for (let i = 0; i < CHARTS.length; i++) {
        const img = imgs.nth(i);
        await img.scrollIntoViewIfNeeded();
        await page.waitForFunction((el) => (el as HTMLImageElement).complete, await img.elementHandle());
        const box = (await img.boundingBox())!;
        expect(box.width).toBeLessThanOrEqual(width);
        const svgWidth = Number(
          /^<svg[^>]* width="([\d.]+)"/.exec(readFileSync(join(dir, `${CHARTS[i]!.id}.svg`), 'utf8'))![1],
        );
        // The narrow drawing's 12-unit axis text, at the scale the PNG is shown at.
        expect((12 * box.width) / svgWidth, CHARTS[i]!.id).toBeGreaterThanOrEqual(10);
        const ink = await xTickInk(
          page,
          readFileSync(join(dir, `${CHARTS[i]!.id}.png`)),
          readFileSync(join(dir, `${CHARTS[i]!.id}.svg`), 'utf8'),
          box.width,
        );
        // Digits of a 10 px font stand about 7 px tall; each tick label is its own island of ink.
        expect(ink.height, `${CHARTS[i]!.id}: x tick label height in px`).toBeGreaterThanOrEqual(7);
        expect(ink.islands, `${CHARTS[i]!.id}: x tick labels apart (ink at ${ink.at})`).toBe(ink.ticks);
      }
      await page.close();
    });
});

/**
 * The x tick labels of a standalone PNG, read from its pixels as shown `shownWidth` px wide: the
 * height of their ink (CSS px) and how many separate islands of ink the label band holds (labels
 * closer than 4 px merge into one).
 */
async function xTickInk(page: Page, png: Buffer, svg: string, shownWidth: number) {
  const top = Number(/<g transform="translate\(0,([\d.]+)\)">/.exec(svg)![1]);
  const axis = /aria-label="x-axis tick label">(.*?)<\/g>/.exec(svg)![1]!;
  const at = [...axis.matchAll(/<text transform="translate\(([\d.]+),([\d.]+)\)/g)].map(
    (m) => [Number(m[1]), Number(m[2])] as const,
  );
  // In a chart of panels the axis sits in the bottom panel's group, moved down by its offset.
  const panel = Number(/^<g transform="translate\(0,([\d.]+)\)"/.exec(axis)?.[1] ?? 0);
  const width = Number(/^<svg[^>]* width="([\d.]+)"/.exec(svg)![1]);
  // The label group sits 9 units below its ticks (6 long); a label is one line of 12-unit text, and
  // the axis title starts 32 units below the ticks.
  const y = top + panel + at[0]![1];
  const band = { y0: y + 7, y1: y + 9 + 12 };
  return page.evaluate(
    async ({ src, band, k, ticks, fontPx }) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = Math.round(img.naturalWidth * k);
      c.height = Math.round(img.naturalHeight * k);
      const ctx = c.getContext('2d')!;
      ctx.drawImage(img, 0, 0, c.width, c.height);
      const s = c.width / img.naturalWidth;
      const y0 = Math.floor(band.y0 * s * (img.naturalWidth / band.unitsWide));
      const y1 = Math.ceil(band.y1 * s * (img.naturalWidth / band.unitsWide));
      const d = ctx.getImageData(0, y0, c.width, y1 - y0).data;
      const dark = (x: number, y: number) => {
        const i = (y * c.width + x) * 4;
        return d[i]! + d[i + 1]! + d[i + 2]! < 3 * 160;
      };
      let lo = Infinity;
      let hi = -1;
      const cols: boolean[] = [];
      for (let x = 0; x < c.width; x++) {
        let any = false;
        for (let y = 0; y < y1 - y0; y++)
          if (dark(x, y)) {
            any = true;
            lo = Math.min(lo, y);
            hi = Math.max(hi, y);
          }
        cols.push(any);
      }
      // A word space is about a third of an em: labels further apart than 0.7 em are separate.
      const apart = 0.7 * fontPx;
      const islands: number[][] = [];
      let gap = Infinity;
      cols.forEach((any, x) => {
        if (any && gap >= apart) islands.push([x, x]);
        if (any) islands.at(-1)![1] = x;
        gap = any ? 0 : gap + 1;
      });
      return {
        height: hi - lo + 1,
        islands: islands.length,
        at: islands.map((r) => r.join('-')).join(' '),
        ticks,
      };
    },
    {
      src: `data:image/png;base64,${png.toString('base64')}`,
      band: { ...band, unitsWide: width },
      k: shownWidth / (await pngWidth(png)),
      ticks: at.length,
      fontPx: (12 * shownWidth) / width,
    },
  );
}

function pngWidth(png: Buffer): number {
  return png.readUInt32BE(16);
}
