import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Files beside the pages (chart SVGs, iframe pages, raw and compare JSON, Open Graph cards): a page
 * writes them while it renders, straight into the build's output folder, whose path the build's
 * integration puts in this variable. So each chart is drawn once per build, not once for its page
 * and again for its files. Outside a build (astro dev) nothing is written.
 */
export const STAGE_ENV = 'REDIS_BENCHDB_SITE_STAGE';

/** The SVG files written in this build, for the integration to draw as PNGs (same process). */
const KEY = '__redisBenchdbStagedSvgs';
export function stagedSvgs(): string[] {
  const g = globalThis as unknown as Record<string, string[]>;
  g[KEY] ??= [];
  return g[KEY];
}

const made = new Set<string>();

export function stageFile(sitePath: string, content: string): void {
  const root = process.env[STAGE_ENV];
  if (!root) return;
  const rel = sitePath.endsWith('/') ? `${sitePath}index.html` : sitePath;
  const file = join(root, rel);
  const dir = dirname(file);
  if (!made.has(dir)) {
    mkdirSync(dir, { recursive: true });
    made.add(dir);
  }
  writeFileSync(file, content);
  if (rel.endsWith('.svg')) stagedSvgs().push(rel);
}
