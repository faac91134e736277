import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pngWidthOf } from '@redis-benchdb/png';
import { build as esbuild } from 'esbuild';
import { startOpenData } from './open-data.mjs';
import { renderPngs } from './png.mjs';
import { pngModeFromEnv } from './png-mode.mjs';

const STAGE_ENV = 'REDIS_BENCHDB_SITE_STAGE';
const onlyResultPages = () => process.env.REDIS_BENCHDB_SITE_ONLY === 'results';
const SVGS = '__redisBenchdbStagedSvgs';
const WORKER_ENV = 'REDIS_BENCHDB_SITE_WORKER';
// Pages left out of the build (src/lib/build/build-report.ts pushes them here as they render).
const SKIPPED = '__redisBenchdbSkippedPages';

/**
 * The result pages' worker (src/workers/prepare-worker.ts) as one ES module: worker threads run plain
 * JavaScript, and Vite's page chunks are not meant to be loaded on their own. Packages stay external
 * and resolve from site/node_modules, as the pages' do.
 */
async function bundleWorker() {
  const dir = fileURLToPath(new URL('../node_modules/.cache/redis-benchdb-site/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const outfile = `${dir}prepare-worker-${process.pid}.mjs`;
  await esbuild({
    entryPoints: [fileURLToPath(new URL('../src/workers/prepare-worker.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return outfile;
}

/**
 * The build's second half. Pages write chart SVGs, iframe pages and JSON into the output folder
 * while they render (see src/lib/build/stage.ts); when Astro is done, this draws a PNG of every SVG (charts
 * for Markdown blogs, Open Graph cards) and writes the open-data files.
 */
export default function artefacts() {
  let outDir = null;
  let openData = null;
  let pngMode = 'none';
  // Beside dist/, on its file system: moved in with a rename once Astro has written dist/.
  const openDataDir = () => `${outDir.replace(/\/+$/, '')}.open-data-${process.pid}`;
  return {
    name: 'redis-benchdb-artefacts',
    hooks: {
      'astro:config:done': ({ config }) => {
        outDir = fileURLToPath(config.outDir);
        pngMode = pngModeFromEnv();
      },
      'astro:build:start': async () => {
        process.env[STAGE_ENV] = outDir;
        process.env[WORKER_ENV] = await bundleWorker();
        globalThis[SVGS] = [];
        globalThis[SKIPPED] = [];
        rmSync(openDataDir(), { recursive: true, force: true });
        // A build of new result pages alone (the publishing service's first step) leaves the open data
        // to the full build that follows it (src/lib/build/frozen-pages.ts).
        openData = onlyResultPages() ? null : startOpenData(openDataDir());
      },
      'astro:build:done': async ({ dir, logger }) => {
        const out = fileURLToPath(dir);
        const svgs = globalThis[SVGS] ?? [];
        delete process.env[STAGE_ENV];
        // The bundle is this build's own (named by pid): the next build makes its own.
        rmSync(process.env[WORKER_ENV], { force: true });
        delete process.env[WORKER_ENV];
        let t0 = performance.now();
        if (openData !== null) {
          const { results, seconds, reused, partsWritten } = await openData;
          mkdirSync(`${out}data`, { recursive: true });
          // The monthly parts, their index and the SQLite snapshot (open-data.mjs).
          if (existsSync(openDataDir()))
            for (const f of readdirSync(openDataDir()))
              renameSync(`${openDataDir()}/${f}`, `${out}data/${f}`);
          rmSync(openDataDir(), { recursive: true, force: true });
          logger.info(
            `open data: ${results} results in ${seconds.toFixed(1)} s, ${reused ? 'linked from its cache (the database is unchanged)' : `written (${partsWritten} monthly part(s) and the snapshot; the other parts linked from the cache)`}, beside the pages (waited ${secs(t0)} for it)`,
          );
        }
        t0 = performance.now();
        const report = { skippedPages: globalThis[SKIPPED] ?? [], failedPngs: [] };
        // on-request: the publishing service draws each PNG when first asked. none: only the site's
        // card, the one Open Graph image such a build's pages name (src/lib/build/png.ts).
        const wanted =
          pngMode === 'all' ? svgs : pngMode === 'none' ? svgs.filter((s) => s.rel === '/og.svg') : [];
        if (pngMode !== 'all')
          logger.info(
            `PNGs: ${wanted.length} drawn of ${svgs.length} charts (REDIS_BENCHDB_SITE_PNG=${pngMode}; pnpm site:build --png draws them all)`,
          );
        const jobs = wanted.map(({ rel, sha256 }) => ({
          svgFile: `${out}${rel}`,
          sha256,
          pngFile: `${out}${rel.replace(/\.svg$/, '.png')}`,
          width: pngWidthOf(rel),
        }));
        const { rendered, cached, failed } = await renderPngs(jobs);
        logger.info(`${jobs.length} PNGs: ${rendered} drawn, ${cached} from cache, in ${secs(t0)}`);
        for (const f of failed) {
          const chart = `/${f.svgFile.slice(out.length)}`;
          logger.warn(`no PNG for ${chart}: ${f.error}`);
          report.failedPngs.push({ chart, error: f.error });
        }
        writeReport(out, report, logger);
      },
    },
  };
}

/**
 * build-report.json beside the pages: what this build left out and why, so that a build which
 * succeeded for every other result still says which one it could not render.
 */
function writeReport(out, report, logger) {
  writeFileSync(`${out}build-report.json`, `${JSON.stringify(report, null, 2)}\n`);
  const n = report.skippedPages.length + report.failedPngs.length;
  if (n === 0) return;
  logger.warn(
    `${report.skippedPages.length} pages left out and ${report.failedPngs.length} PNGs not drawn (listed in ${out}build-report.json):`,
  );
  for (const s of report.skippedPages) logger.warn(`  skipped ${s.page}: ${s.error}`);
}

const secs = (t0) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
