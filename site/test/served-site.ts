import type { Browser } from 'playwright-core';
import { launchChromium } from '../tools/chromium.mjs';
import { serveStatic } from '../tools/serve-static.mjs';
import { buildSite } from './build.js';

/** A site built from a database, served on 127.0.0.1, and a Chromium to read it with. */
export interface ServedSite {
  url: string;
  browser: Browser;
  /** Closes the browser and the server (the caller removes its folder). */
  close: () => Promise<void>;
}

export async function serveBuiltSite(
  dbPath: string,
  outDir: string,
  env: Record<string, string> = {},
): Promise<ServedSite> {
  await buildSite(dbPath, outDir, env);
  const server = await serveStatic(outDir);
  const browser = await launchChromium();
  return {
    url: server.url,
    browser,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}
