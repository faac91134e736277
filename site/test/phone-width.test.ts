import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingest, openDatabase } from '@redis-benchdb/db';
import { generateSigningKey, signResult } from '@redis-benchdb/result';
import { variant } from '@redis-benchdb/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../tools/chromium.mjs';
import { serveStatic } from '../tools/serve-static.mjs';
import { buildSite } from './build.js';

// Issue 41, on a 390 px phone: a result's cells table reads one line per row (its sticky first column
// was squeezed to 51 px and broke "SET 4KiB k1000" inside its words), no header is clipped (the home
// table's "Compare" showed as "Co"), and the home page's count is true of the database it was built
// from: one signed run, nothing submitted, nothing imported.
const LABELS = ['SET 4KiB k1000', 'LRANGE_600 P16 c200'];

let dir: string;
let id: string;
let server: { url: string; close: () => Promise<void> };
let browser: Browser;

// Builds a site (about 70 s on a shared 2-core VM): its own timeout over the tier's minute (vitest.config.ts).
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbdb-phone-'));
  const dbPath = join(dir, 'benchdb.sqlite');
  const db = openDatabase(dbPath);
  try {
    const r = variant(41, (r) => {
      for (const [i, c] of r.cells.entries()) c.label = LABELS[i]!;
    });
    id = ingest(db, JSON.stringify(signResult(r, generateSigningKey().privateKeyPem))).id;
  } finally {
    db.close();
  }
  const out = join(dir, 'dist');
  await buildSite(dbPath, out);
  server = await serveStatic(out);
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function phone(path: string): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await ctx.newPage();
  const res = await page.goto(server.url + path, { waitUntil: 'networkidle' });
  expect(res?.status(), path).toBe(200);
  return page;
}

/** Each header of the page whose text is wider than the box that shows it. */
const clippedHeaders = (page: Page) =>
  page
    .locator('th')
    .evaluateAll((ths) =>
      ths.filter((th) => th.scrollWidth > th.clientWidth + 1).map((th) => th.textContent?.trim() ?? ''),
    );

describe('at 390 px', () => {
  it("a result's cells table: every cell name on one line, whole", async () => {
    const page = await phone(`/results/${id}/`);
    const names = await page.locator('table.cells > tbody > tr > td:first-child').evaluateAll((tds) =>
      tds.map((td) => {
        const inner = td.firstElementChild as HTMLElement;
        const range = document.createRange();
        range.selectNodeContents(inner.firstChild!);
        // One line: every piece of the text in the same line box.
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        return { text: td.textContent, lines: lines.size, cut: inner.scrollWidth > inner.clientWidth + 1 };
      }),
    );
    expect(names.map((n) => n.text)).toEqual(LABELS);
    for (const n of names)
      expect({ lines: n.lines, cut: n.cut }, `${n.text}`).toEqual({ lines: 1, cut: false });
    expect(await clippedHeaders(page)).toEqual([]);
  });

  it('the home page: no header clipped, and its count is what the database holds', async () => {
    const page = await phone('/');
    expect(await clippedHeaders(page)).toEqual([]);
    const intro = (await page.locator('main > p').first().textContent())!.replace(/\s+/g, ' ').trim();
    expect(intro).toMatch(/^1 signed result from npx redis-benchdb run\. /);
    expect(intro).not.toMatch(/results from|published benchmarks|--submit/);
  });
});
