import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { launchChromium } from '../tools/chromium.mjs';
import { serveStatic } from '../tools/serve-static.mjs';
import { buildSite } from './build.js';

/** The real site built from a database, served on 127.0.0.1, and Debian's Chromium to read it. */
export interface ServedSite {
  /** Where the site was built: dir/dist. */
  out: string;
  /** Where it is served: http://127.0.0.1:PORT. */
  url: string;
  browser: Browser;
  /** A page in a context of its own, with the console errors and page errors it raises. */
  open(path: string): Promise<{ page: Page; errors: string[] }>;
  /** Stops the browser and the server, and removes `dir`. */
  close(): Promise<void>;
}

export async function serveBuiltSite(dir: string, dbPath: string): Promise<ServedSite> {
  const out = join(dir, 'dist');
  await buildSite(dbPath, out);
  const server = await serveStatic(out);
  const browser = await launchChromium();
  return {
    out,
    url: server.url,
    browser,
    async open(path) {
      const page = await (await browser.newContext()).newPage();
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      const res = await page.goto(server.url + path, { waitUntil: 'networkidle' });
      expect(res?.status(), path).toBe(200);
      return { page, errors };
    },
    async close() {
      await browser.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The site built from the database db:build makes of data/, served as serveBuiltSite serves it. */
export async function serveSiteFromData(prefix: string): Promise<ServedSite> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const db = join(dir, 'benchdb.sqlite');
  const script = fileURLToPath(new URL('../../scripts/db-build.mjs', import.meta.url));
  const made = spawnSync(process.execPath, [script, '--db', db], { encoding: 'utf8' });
  expect(made.status, made.stderr).toBe(0);
  return serveBuiltSite(dir, db);
}

/** A page of `site` at `path`, in a context of its own with a viewport of width x height. */
export async function pageAt(site: ServedSite, path: string, width: number, height: number): Promise<Page> {
  const page = await (await site.browser.newContext({ viewport: { width, height } })).newPage();
  await page.goto(site.url + path, { waitUntil: 'load' });
  return page;
}
