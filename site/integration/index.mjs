import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOpenData } from './open-data.mjs';
import { renderPngs } from './png.mjs';

const STAGE_ENV = 'REDIS_BENCHDB_SITE_STAGE';

/**
 * The build's second half. Pages stage chart SVGs, iframe pages and JSON while they render (see
 * src/lib/stage.ts); when Astro is done this moves them into dist/ and draws a PNG of every SVG
 * that wants one (charts for Markdown blogs, Open Graph images).
 */
export default function artefacts() {
  let stage = null;
  return {
    name: 'redis-benchdb-artefacts',
    hooks: {
      'astro:build:start': () => {
        stage = mkdtempSync(join(tmpdir(), 'rbdb-site-stage-'));
        process.env[STAGE_ENV] = stage;
      },
      'astro:build:done': async ({ dir, logger }) => {
        const out = fileURLToPath(dir);
        const t0 = performance.now();
        const svgs = listFiles(stage).filter((f) => f.endsWith('.svg'));
        cpSync(stage, out, { recursive: true });
        const jobs = svgs.map((rel) => ({
          svgFile: join(out, rel),
          pngFile: join(out, rel.replace(/\.svg$/, '.png')),
          width: rel.endsWith('og.svg') ? 1200 : 1280,
        }));
        const cacheDir = fileURLToPath(new URL('../node_modules/.cache/redis-benchdb-png/', import.meta.url));
        const { rendered, cached } = await renderPngs(jobs, cacheDir);
        const { results } = await writeOpenData(out);
        rmSync(stage, { recursive: true, force: true });
        delete process.env[STAGE_ENV];
        logger.info(
          `${svgs.length} chart files staged; PNGs: ${rendered} drawn, ${cached} from cache, in ${((performance.now() - t0) / 1000).toFixed(1)} s; open data: ${results} results`,
        );
      },
    },
  };
}

function listFiles(root, rel = '') {
  const out = [];
  for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(root, p));
    else out.push(p);
  }
  return out;
}
