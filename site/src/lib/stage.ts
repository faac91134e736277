import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Files beside the pages (chart SVGs, iframe pages, raw JSON): a page writes them while it renders,
 * into a staging folder the build's integration then moves into dist/ and turns into PNGs. So each
 * chart is drawn once per build, not once for its page and again for its files. Outside a build
 * (astro dev) there is no staging folder and nothing is written.
 */
export const STAGE_ENV = 'REDIS_BENCHDB_SITE_STAGE';

export function stageFile(sitePath: string, content: string): void {
  const root = process.env[STAGE_ENV];
  if (!root) return;
  const file = join(root, sitePath.endsWith('/') ? `${sitePath}index.html` : sitePath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}
