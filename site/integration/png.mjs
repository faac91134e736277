import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pngCacheName, pngPool } from '@redis-benchdb/png';

// Keyed by content, so it never goes stale; REDIS_BENCHDB_PNG_CACHE moves it (a cold build, or a CI cache).
const DEFAULT_CACHE =
  process.env.REDIS_BENCHDB_PNG_CACHE ||
  fileURLToPath(new URL('../node_modules/.cache/redis-benchdb-png/', import.meta.url));

/**
 * PNGs for every staged SVG, cached by the SVG's content: a chart is immutable once its result is,
 * so a rebuild renders only new charts. Returns how many were rendered and how many came from cache,
 * and the charts that could not be drawn (`failed`: their svgFile and the error), which get no PNG.
 * The drawing is the publishing service's (@redis-benchdb/png), on every core.
 */
export async function renderPngs(jobs, cacheDir = DEFAULT_CACHE) {
  mkdirSync(cacheDir, { recursive: true });
  const todo = [];
  let cached = 0;
  for (const job of jobs) {
    // The page hashed the SVG as it wrote it (job.sha256); a caller without the hash pays a read.
    const content = job.sha256 ?? createHash('sha256').update(readFileSync(job.svgFile)).digest('hex');
    const cacheFile = join(cacheDir, pngCacheName(content, job.width));
    if (existsSync(cacheFile)) {
      place(cacheFile, job.pngFile);
      cached++;
    } else todo.push({ ...job, cacheFile });
  }
  const failed = todo.length ? await drawAll(todo) : [];
  const bad = new Set(failed.map((f) => f.svgFile));
  for (const j of todo) if (!bad.has(j.svgFile)) place(j.cacheFile, j.pngFile);
  return { rendered: todo.length - failed.length, cached, failed };
}

/** A hard link where the cache and the site share a file system (no copy), else a copy. */
function place(from, to) {
  try {
    linkSync(from, to);
  } catch (e) {
    if (e.code === 'EEXIST') {
      rmSync(to, { force: true });
      return place(from, to);
    }
    copyFileSync(from, to);
  }
}

/** Draws each job's SVG into its cacheFile; returns the ones that could not be drawn. */
async function drawAll(jobs) {
  const threads = availableParallelism();
  const pool = pngPool(threads);
  const next = jobs[Symbol.iterator]();
  const failed = [];
  // Two drawings in hand per thread keep every thread busy, and hold only that many SVGs in memory.
  const worker = async () => {
    for (const { svgFile, cacheFile, width } of next) {
      try {
        const { png } = await pool.draw(readFileSync(svgFile), width);
        // The cache is read by other builds (two site builds at once, as the tests run): whole or absent.
        const partial = `${cacheFile}.${process.pid}.partial`;
        writeFileSync(partial, png);
        renameSync(partial, cacheFile);
      } catch (e) {
        // One chart resvg cannot parse (text that is not XML) loses its PNG, not the build's other charts.
        failed.push({ svgFile, error: String(e?.message ?? e).split('\n')[0] });
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: 2 * threads }, worker));
  } finally {
    await pool.close();
  }
  return failed;
}
