import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const FONT_CANDIDATES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
];
const BATCH = 50;
// Keyed by content, so it never goes stale; REDIS_BENCHDB_PNG_CACHE moves it (a cold build, or a CI cache).
const DEFAULT_CACHE =
  process.env.REDIS_BENCHDB_PNG_CACHE ||
  fileURLToPath(new URL('../node_modules/.cache/redis-benchdb-png/', import.meta.url));

/**
 * PNGs for every staged SVG, cached by the SVG's content: a chart is immutable once its result is,
 * so a rebuild renders only new charts. Returns how many were rendered and how many came from cache,
 * and the charts that could not be drawn (`failed`: their svgFile and the error), which get no PNG.
 */
export async function renderPngs(jobs, cacheDir = DEFAULT_CACHE) {
  mkdirSync(cacheDir, { recursive: true });
  const todo = [];
  let cached = 0;
  for (const job of jobs) {
    // The page hashed the SVG as it wrote it (job.sha256); a caller without the hash pays a read.
    const content = job.sha256 ?? createHash('sha256').update(readFileSync(job.svgFile)).digest('hex');
    const key = createHash('sha256').update(`${content} ${job.width}`).digest('hex');
    const cacheFile = join(cacheDir, `${key}.png`);
    if (existsSync(cacheFile)) {
      place(cacheFile, job.pngFile);
      cached++;
    } else todo.push({ ...job, cacheFile });
  }
  const failed = todo.length
    ? await runPool(todo.map((j) => ({ svgFile: j.svgFile, pngFile: j.cacheFile, width: j.width })))
    : [];
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

async function runPool(jobs) {
  const fontFiles = FONT_CANDIDATES.filter((f) => existsSync(f));
  const n = Math.max(1, Math.min(availableParallelism(), Math.ceil(jobs.length / BATCH)));
  const batches = [];
  for (let i = 0; i < jobs.length; i += BATCH) batches.push(jobs.slice(i, i + BATCH));
  const failed = [];
  const workers = Array.from(
    { length: n },
    () => new Worker(new URL('./png-worker.mjs', import.meta.url), { workerData: { fontFiles } }),
  );
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise((resolve, reject) => {
            const next = (reply) => {
              if (reply) failed.push(...reply.failed);
              const b = batches.shift();
              if (!b) return resolve();
              w.once('message', next);
              w.postMessage(b);
            };
            w.once('error', reject);
            next();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return failed;
}
