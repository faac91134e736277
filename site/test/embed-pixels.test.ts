import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../tools/chromium.mjs';
import { buildFixture, type Fixture } from './fixture.js';

// Every embeddable chart, as a blog post shows it: its .svg and .png as <img> and its iframe snippet,
// on a page from another origin, read back as pixels. Counting elements or parse errors passes on a
// blank image; counting drawn pixels inside the chart's own area does not. The site is the publishing
// service's (redis-benchdb-server --site-dir, started from its bin): it builds the site, and draws each
// PNG from its SVG when first asked for. site.test.ts has the static build with every PNG drawn.
const SERVER_MAIN = fileURLToPath(new URL('../../packages/server/dist/main.js', import.meta.url));
let dir: string;
let fx: Fixture;
let site: { url: string; close: () => Promise<void> };
/** The site the service serves now (its `current` build). */
let builtDir: string;
let blog: { url: string; close: () => Promise<void>; pages: Map<string, string> };
let browser: Browser;
// Page loads and screenshots wait on events; on a loaded 2-core machine one can take long.
const WAIT_MS = 120_000;

/** A chart as its page's embed box offers it. */
interface Embed {
  page: string;
  id: string;
  svg: string;
  png: string;
  iframe: string;
  markdown: string;
}
const embeds: Embed[] = [];

/** A second origin (another port), serving whatever HTML a test puts at a path: the blog. */
async function serveBlog(): Promise<typeof blog> {
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const html = pages.get(req.url ?? '');
    if (html === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    pages,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** The publishing service over `dbPath`, once it serves its first build (health says `ready`). */
async function publish(dbPath: string, siteDir: string): Promise<typeof site> {
  if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} is missing: run \`pnpm build\` first`);
  const child: ChildProcess = spawn(
    process.execPath,
    [SERVER_MAIN, '--db', dbPath, '--port', '0', '--site-dir', siteDir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the publishing service exited with ${code}`)));
  });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  // The build takes minutes on a busy machine: wait on its state, not on a clock.
  for (;;) {
    const health = (await (await fetch(`${url}/api/v1/health`)).json()) as { site: { state: string } };
    if (health.site.state === 'ready') break;
    if (health.site.state === 'failed') {
      await close();
      throw new Error(`the service's site build failed: ${JSON.stringify(health.site)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, close };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbdb-embed-test-'));
  fx = buildFixture(dir);
  // The service names its own origin in the pages: the snippets are used exactly as a reader would copy them.
  site = await publish(fx.dbPath, join(dir, 'site'));
  builtDir = join(dir, 'site', 'current');
  blog = await serveBlog();
  browser = await launchChromium();
  const machine = await firstLink('/machines/', 'main table a');
  for (const path of [
    `/results/${fx.ids.base}/`,
    `/results/${fx.ids.imported[0]}/`,
    `/groups/${fx.groupId}/`,
    '/',
    machine,
  ])
    embeds.push(...(await embedsOf(path)));
});

afterAll(async () => {
  await browser?.close();
  await blog?.close();
  await site?.close();
  if (dir && !process.env.RBDB_KEEP_TEST_SITE) rmSync(dir, { recursive: true, force: true });
});

async function firstLink(path: string, selector: string): Promise<string> {
  const page = await browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(site.url + path);
  const href = await page.locator(selector).first().getAttribute('href');
  await page.close();
  return href!;
}

async function embedsOf(path: string): Promise<Embed[]> {
  const page = await browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(site.url + path);
  const found = await page.locator('figure.chart').evaluateAll((figs) =>
    figs.map((f) => {
      const links = [...f.querySelectorAll('details.embed a')].map((a) => a.getAttribute('href') ?? '');
      const snippets = [...f.querySelectorAll('code.snippet')].map((c) => c.textContent ?? '');
      return {
        id: (f as HTMLElement).dataset.chart ?? '',
        svg: links.find((h) => h.endsWith('.svg')) ?? '',
        png: links.find((h) => h.endsWith('.png')) ?? '',
        iframe: snippets[0] ?? '',
        markdown: snippets[1] ?? '',
      };
    }),
  );
  await page.close();
  return found.map((e) => ({ ...e, page: path }));
}

/** Where the chart itself sits in a standalone file, in the file's own units, read from its SVG. */
interface Geometry {
  width: number;
  plot: { x: number; y: number; width: number; height: number };
}
function geometry(svgText: string): Geometry {
  const outer = /^<svg[^>]* width="([\d.]+)"/.exec(svgText);
  const inner = /<g transform="translate\(0,([\d.]+)\)"><svg [^>]*viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(
    svgText,
  );
  if (!outer || !inner) throw new Error(`no chart geometry in ${svgText.slice(0, 200)}`);
  return {
    width: Number(outer[1]),
    plot: { x: 0, y: Number(inner[1]), width: Number(inner[2]), height: Number(inner[3]) },
  };
}

interface Counts {
  /** Pixels that are not (near) white: axes, grid, labels and marks. */
  drawn: number;
  /** Pixels in colour (not grey): the data marks, which use the series palette. */
  coloured: number;
}

/** Counts pixels of a PNG inside a rectangle (fractions of its size), decoded by Chromium itself. */
async function count(
  probe: Page,
  png: Buffer,
  rect = { x: 0, y: 0, width: 1, height: 1 },
): Promise<Counts & { width: number }> {
  return probe.evaluate(
    async ({ src, rect }) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.naturalWidth;
      c.height = img.naturalHeight;
      const ctx = c.getContext('2d')!;
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, c.width, c.height);
      ctx.drawImage(img, 0, 0);
      const x = Math.round(rect.x * c.width);
      const y = Math.round(rect.y * c.height);
      const w = Math.max(1, Math.round(rect.width * c.width));
      const h = Math.max(1, Math.round(rect.height * c.height));
      const d = ctx.getImageData(x, y, w, h).data;
      let drawn = 0;
      let coloured = 0;
      for (let i = 0; i < d.length; i += 4) {
        const r = d[i]!;
        const g = d[i + 1]!;
        const b = d[i + 2]!;
        if (r + g + b < 3 * 235) drawn++;
        if (Math.max(r, g, b) - Math.min(r, g, b) > 48) coloured++;
      }
      return { drawn, coloured, width: c.width };
    },
    { src: `data:image/png;base64,${png.toString('base64')}`, rect },
  );
}

/** The chart's area of a whole standalone image, as fractions: the title and source bands left out. */
function plotRect(g: Geometry, heightUnits: number) {
  return {
    x: g.plot.x / g.width,
    y: g.plot.y / heightUnits,
    width: g.plot.width / g.width,
    height: g.plot.height / heightUnits,
  };
}

/**
 * What a real chart exceeds and a blank one cannot reach, per CSS pixel of chart area: a chart has
 * some 1,300–10,000 drawn pixels (axes, grid, labels, marks; the fewest in a one-row chart such as
 * the fixture's single-version headline, with its light grid) and a few hundred in colour; a chart
 * whose marks did not render has none in its area.
 */
function expectPlotted(c: Counts, scale: number, what: string): void {
  expect(c.drawn, `${what}: drawn pixels in the plot area`).toBeGreaterThan(1000 * scale * scale);
  expect(c.coloured, `${what}: coloured (data) pixels in the plot area`).toBeGreaterThan(40 * scale * scale);
}

describe('embedded charts show the chart, not just its title', () => {
  it('finds every kind of chart the site draws', () => {
    const kinds = new Set(embeds.map((e) => e.id.replace(/^history-.*/, 'history')));
    // No headline by version: versions are set against each other per machine kind (issue 27), not ranked.
    for (const k of ['pipeline', 'latency', 'cells', 'headline-by-machine', 'history'])
      expect(kinds, k).toContain(k);
    for (const e of embeds) {
      expect(e.svg, e.id).toMatch(/\.svg$/);
      expect(e.png, e.id).toMatch(/\.png$/);
    }
  });

  it('each PNG, drawn by the service when first asked for, has plotted pixels inside its chart area', async () => {
    const probe = await browser.newPage();
    probe.setDefaultTimeout(WAIT_MS);
    for (const e of embeds) {
      // Not a file of the build: the service draws it from the SVG now.
      expect(existsSync(join(builtDir, e.png)), e.png).toBe(false);
      const svgText = await (await fetch(site.url + e.svg)).text();
      const g = geometry(svgText);
      const heightUnits = Number(/^<svg[^>]* height="([\d.]+)"/.exec(svgText)![1]);
      const png = Buffer.from(await (await fetch(site.url + e.png)).arrayBuffer());
      const whole = await count(probe, png);
      const c = await count(probe, png, plotRect(g, heightUnits));
      expectPlotted(c, whole.width / g.width, `${e.page} ${e.png}`);
    }
    await probe.close();
  });

  it('in a blog on another origin, the <img> of the SVG, the <img> of the PNG and the iframe each show the chart', async () => {
    const probe = await browser.newPage();
    probe.setDefaultTimeout(WAIT_MS);
    for (const [i, e] of embeds.entries()) {
      const svgText = await (await fetch(site.url + e.svg)).text();
      const g = geometry(svgText);
      const heightUnits = Number(/^<svg[^>]* height="([\d.]+)"/.exec(svgText)![1]);
      const path = `/post-${i}.html`;
      blog.pages.set(
        path,
        `<!doctype html><meta charset="utf-8"><title>post</title><h1>My benchmark post</h1>
<p><img id="svg" src="${site.url}${e.svg}" width="${g.width}" alt="chart"></p>
<p><img id="png" src="${site.url}${e.png}" width="${g.width}" alt="chart"></p>
<p>${e.iframe}</p>`,
      );
      const ctx = await browser.newContext({ viewport: { width: 1000, height: 800 } });
      ctx.setDefaultTimeout(WAIT_MS);
      const page = await ctx.newPage();
      await page.goto(blog.url + path);
      for (const id of ['svg', 'png']) {
        const img = page.locator(`#${id}`);
        await img.scrollIntoViewIfNeeded();
        await page.waitForFunction((id) => {
          const el = document.getElementById(id) as HTMLImageElement;
          return el.complete && el.naturalWidth > 0;
        }, id);
        const c = await count(probe, await img.screenshot(), plotRect(g, heightUnits));
        expectPlotted(c, 1, `${e.page} ${e.id} as <img> of its ${id}`);
      }
      // The iframe as the reader sees it, cut to the chart inside it (Chromium throttles frames out of view).
      const iframe = page.locator('iframe');
      await iframe.scrollIntoViewIfNeeded();
      const chart = page.frameLocator('iframe').locator('svg[role=img]:visible');
      await chart.waitFor();
      const shot = await iframe.screenshot();
      const f = (await iframe.boundingBox())!;
      const c = (await chart.boundingBox())!;
      const inFrame = {
        x: (c.x - f.x) / f.width,
        y: (c.y - f.y) / f.height,
        width: Math.min(c.width, f.x + f.width - c.x) / f.width,
        height: Math.min(c.height, f.y + f.height - c.y) / f.height,
      };
      expectPlotted(await count(probe, shot, inFrame), 1, `${e.page} ${e.id} in its iframe`);
      await ctx.close();
    }
    await probe.close();
  });

  for (const width of [1280, 390])
    it(`at ${width} px, a blog of every iframe snippet as offered: each fits its chart, nothing clipped and at most 40 px blank`, async () => {
      blog.pages.set('/all.html', `<!doctype html>${embeds.map((e) => `<p>Words.</p>${e.iframe}`).join('')}`);
      const ctx = await browser.newContext({ viewport: { width, height: 844 } });
      const page = await ctx.newPage();
      await page.goto(`${blog.url}/all.html`);
      for (const [i, e] of embeds.entries()) {
        const frame = page.locator('iframe').nth(i);
        await frame.scrollIntoViewIfNeeded();
        const body = page.frameLocator('iframe').nth(i).locator('body');
        // The page inside lays itself out to the frame's height, with no script.
        const fit = async () =>
          (await frame.boundingBox())!.height - (await body.evaluate((b) => b.clientHeight));
        await expect.poll(fit, { message: `${e.page} ${e.id}`, timeout: WAIT_MS }).toBeGreaterThanOrEqual(0);
        expect(await fit(), `${e.page} ${e.id}: blank below`).toBeLessThanOrEqual(40);
      }
      await ctx.close();
    });

  it('the Markdown snippet shows the PNG and links to the chart source', () => {
    for (const e of embeds) {
      const m = /^\[!\[[^\]]*\]\(([^)]+)\)\]\(([^)]+)\)/.exec(e.markdown);
      expect(m, e.markdown).not.toBeNull();
      expect(m![1]).toBe(site.url + e.png);
      expect(m![2]).toMatch(new RegExp(`^${site.url}/`));
    }
  });
});

describe('where an embed comes from', () => {
  it('the iframe source link opens a new tab, and the blog stays', async () => {
    const e = embeds.find((x) => x.id === 'pipeline')!;
    blog.pages.set('/click.html', `<!doctype html><title>post</title><h1>My post</h1>${e.iframe}`);
    const ctx = await browser.newContext();
    ctx.setDefaultTimeout(WAIT_MS);
    const page = await ctx.newPage();
    await page.goto(`${blog.url}/click.html`);
    const link = page.frameLocator('iframe').locator('.source a').first();
    // Whichever comes first: a new page (right) or the blog navigating away (the old target=_top).
    const popup = ctx.waitForEvent('page');
    const away = page.waitForEvent('framenavigated', (f) => f === page.mainFrame());
    popup.catch(() => {});
    away.catch(() => {});
    await link.click();
    const first = await Promise.race([popup.then(() => 'popup'), away.then(() => 'blog navigated away')]);
    expect(first).toBe('popup');
    const opened = await popup;
    await opened.waitForLoadState();
    expect(opened.url()).toBe(`${site.url}/results/${fx.ids.base}/`);
    expect(page.url()).toBe(`${blog.url}/click.html`);
    // No window.opener for the opened page: it cannot navigate the blog.
    expect(await link.getAttribute('rel')).toContain('noopener');
    await ctx.close();
  });

  it('every SVG file and iframe page says its date and links to its source', async () => {
    for (const e of embeds) {
      const live = e.svg.startsWith('/live/');
      const date = live ? /live, built on \d{4}-\d{2}-\d{2}/ : /as of \d{4}-\d{2}-\d{2}/;
      const svgText = await (await fetch(site.url + e.svg)).text();
      expect(svgText, e.svg).toMatch(date);
      // The source line is a link when the SVG is opened directly, and its URL is written out for the PNG.
      const href = /<a href="([^"]+)"/.exec(svgText)?.[1];
      expect(href, e.svg).toMatch(new RegExp(`^${site.url}/`));
      // (on as many lines as it takes: a result's address is longer than a line of a 380-unit chart; the
      // address's lines are the blue ones, since a chart's own labels may wrap into tspans too)
      expect([...svgText.matchAll(/<tspan fill="#0b57d0">([^<]*)</g)].map((m) => m[1]).join(''), e.svg).toBe(
        href,
      );
      const iframeSrc = /<iframe src="([^"]+)"/.exec(e.iframe)![1]!;
      const html = await (await fetch(iframeSrc)).text();
      expect(html, iframeSrc).toMatch(date);
      expect(html, iframeSrc).toContain(`href="${href}"`);
      expect(html, iframeSrc).not.toContain('_top');
    }
  });

  it('an SVG file opened on its own links to its source page', async () => {
    const e = embeds.find((x) => x.id === 'latency')!;
    const page = await browser.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(site.url + e.svg);
    // The blue address is what a reader clicks (the grey lines are in the link too, but a click
    // lands on a glyph or on nothing).
    await Promise.all([page.waitForURL(`${site.url}${e.page}`), page.locator('a tspan').first().click()]);
    await page.close();
  });

  it('a frozen chart is dated by its result, not by the build', async () => {
    // The fixture's results ran on 2025-03-04 (schemas/examples/valid/suite-run.json).
    for (const e of embeds.filter(
      (x) => !x.svg.startsWith('/live/') && !x.page.includes(fx.ids.imported[0]!),
    )) {
      expect(await (await fetch(site.url + e.svg)).text(), e.svg).toContain('as of 2025-03-04');
    }
  });
});
