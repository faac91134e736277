import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Files beside the pages (chart SVGs, iframe pages, raw and compare JSON, Open Graph cards): a page
 * writes them while it renders, straight into the build's output folder, whose path the build's
 * integration puts in this variable. So each chart is drawn once per build, not once for its page
 * and again for its files. Outside a build (astro dev) nothing is written.
 */
export const STAGE_ENV = 'REDIS_BENCHDB_SITE_STAGE';

/**
 * An SVG file written in this build, for the integration to draw as a PNG: its site path and a hash
 * of its content, so the PNG cache is looked up without reading the file again.
 */
export interface StagedSvg {
  rel: string;
  sha256: string;
}

const KEY = '__redisBenchdbStagedSvgs';
export function stagedSvgs(): StagedSvg[] {
  const g = globalThis as unknown as Record<string, StagedSvg[]>;
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
  if (rel.endsWith('.svg'))
    stagedSvgs().push({ rel, sha256: createHash('sha256').update(content).digest('hex') });
}
