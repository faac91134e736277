import { createHash } from 'node:crypto';
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import Tinypool from 'tinypool';
import { HttpError } from '../http-error.js';
import type { PngTask } from './png-worker.js';

const WORKER = fileURLToPath(new URL('./png-worker.js', import.meta.url));

/** A chart's PNG: a path of plain segments (no dot files) ending in .png, as the site names them. */
const CHART_PNG = /^(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)+\.png$/;
/** Charts are 10-60 KB of SVG; a file far larger is not one of ours, and would take long to draw. */
const MAX_SVG_BYTES = 2 * 1024 * 1024;
/** A chart's PNG width, as the site build draws it (site/integration/index.mjs): a blog column's. */
const STANDALONE_PX = 600;

export interface PngOnRequestOptions {
  /** Where drawn PNGs are kept, by content (the same keys as the site build's PNG cache). */
  cacheDir: string;
  /** The cache's size bound: past it, the PNGs least recently asked for are deleted. */
  maxCacheBytes: number;
  /** Drawings under way or waiting, at most; one more is answered 503 with retry-after. */
  maxQueued: number;
  log: (line: string) => void;
}

/**
 * Chart PNGs drawn when first asked for, from the SVG beside them in the site served, with the site
 * build's renderer and settings (png-worker.ts), and kept in a cache bounded in bytes. A site built
 * with REDIS_BENCHDB_SITE_PNG=on-request (what SiteBuilder asks for) links PNGs it did not draw:
 * drawing them all took most of a build at 10,000 results, and almost none is ever fetched.
 *
 * Safe against path tricks: the path must look like a chart's, its SVG must be a regular file (not a
 * link) inside the site's root, and not larger than any chart. Bounded: one thread draws, `maxQueued`
 * drawings wait at most, and the same chart asked for twice at once is drawn once.
 */
export class PngOnRequest {
  readonly cacheDir: string;
  readonly #o: PngOnRequestOptions;
  readonly #pool: Tinypool;
  /** Cached PNGs and their sizes, least recently used first (a Map keeps insertion order). */
  readonly #cached = new Map<string, number>();
  #bytes = 0;
  readonly #drawing = new Map<string, Promise<void>>();
  #ready: Promise<void> | null = null;

  constructor(options: PngOnRequestOptions) {
    this.#o = options;
    this.cacheDir = options.cacheDir;
    this.#pool = new Tinypool({ filename: WORKER, minThreads: 0, maxThreads: 1, idleTimeout: 30_000 });
  }

  /**
   * The cache file (a name in cacheDir) of the PNG at site path `path` under `root`, drawn now if need
   * be; null when the path is not a chart's PNG or the site has no SVG for it. Throws HttpError 503
   * when too many are being drawn, 500 when the SVG cannot be drawn.
   */
  async png(root: string, path: string): Promise<string | null> {
    if (!CHART_PNG.test(path)) return null;
    const svg = await this.#svgOf(root, path);
    if (svg === null) return null;
    // As the site build keys its cache (site/integration/png.mjs): the SVG's hash, then the width.
    const width = basename(path) === 'og.png' ? 1200 : STANDALONE_PX;
    const content = createHash('sha256').update(svg).digest('hex');
    const name = `${createHash('sha256').update(`${content} ${width}`).digest('hex')}.png`;
    await (this.#ready ??= this.#load());
    if (this.#cached.has(name)) {
      this.#touch(name);
      return name;
    }
    let drawing = this.#drawing.get(name);
    if (!drawing) {
      if (this.#drawing.size >= this.#o.maxQueued)
        throw new HttpError(
          'BUSY',
          503,
          `${this.#drawing.size} chart PNGs are being drawn; try again in a few seconds, or use the chart's SVG (${path.replace(/\.png$/, '.svg')})`,
          5,
        );
      drawing = this.#draw(name, svg, width, path).finally(() => this.#drawing.delete(name));
      this.#drawing.set(name, drawing);
    }
    await drawing;
    return name;
  }

  /** Stop the drawing thread (the service is closing). */
  async close(): Promise<void> {
    await this.#pool.destroy();
  }

  /** The SVG's bytes, if `path`'s SVG is a regular file inside root and the size of a chart. */
  async #svgOf(root: string, path: string): Promise<Buffer | null> {
    const file = join(root, path.replace(/\.png$/, '.svg'));
    const found = await lstat(file).catch(() => null);
    if (!found?.isFile() || found.size > MAX_SVG_BYTES) return null;
    // A directory on the way could still be a link out of the site: compare the real paths.
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file)]);
    if (!realFile.startsWith(realRoot + sep)) return null;
    return readFile(realFile);
  }

  async #draw(name: string, svg: Buffer, width: number, path: string): Promise<void> {
    let png: Uint8Array;
    try {
      png = await this.#pool.run({ svg: svg.toString('utf8'), width } satisfies PngTask);
    } catch (e) {
      const why = String((e as Error)?.message ?? e).split('\n')[0];
      throw new HttpError(
        'PNG_FAILED',
        500,
        `the chart ${path} could not be drawn as PNG (${why}); its SVG works`,
      );
    }
    // Written under a temporary name and renamed: a reader finds a whole PNG or none.
    const partial = join(this.cacheDir, `${name}.${process.pid}.partial`);
    await writeFile(partial, png);
    await rename(partial, join(this.cacheDir, name));
    this.#cached.set(name, png.length);
    this.#bytes += png.length;
    await this.#evict(name);
  }

  /** Most recently used goes last; its mtime says so to the next start's #load. */
  #touch(name: string): void {
    const bytes = this.#cached.get(name)!;
    this.#cached.delete(name);
    this.#cached.set(name, bytes);
    const now = new Date();
    utimes(join(this.cacheDir, name), now, now).catch(() => {});
  }

  async #evict(keep: string): Promise<void> {
    for (const [name, bytes] of this.#cached) {
      if (this.#bytes <= this.#o.maxCacheBytes) break;
      if (name === keep) continue;
      this.#cached.delete(name);
      this.#bytes -= bytes;
      await rm(join(this.cacheDir, name), { force: true });
    }
  }

  /** What the cache holds from before (a restart keeps it), oldest first; leftovers of a crash go. */
  async #load(): Promise<void> {
    await mkdir(this.cacheDir, { recursive: true });
    const found: { name: string; bytes: number; mtime: number }[] = [];
    for (const name of await readdir(this.cacheDir)) {
      const file = join(this.cacheDir, name);
      if (name.endsWith('.partial')) {
        await rm(file, { force: true });
        continue;
      }
      if (!name.endsWith('.png')) continue;
      const s = await stat(file).catch(() => null);
      if (s?.isFile()) found.push({ name, bytes: s.size, mtime: s.mtimeMs });
    }
    found.sort((a, b) => a.mtime - b.mtime);
    for (const f of found) {
      this.#cached.set(f.name, f.bytes);
      this.#bytes += f.bytes;
    }
    if (this.#bytes > this.#o.maxCacheBytes) await this.#evict('');
    this.#o.log(`png: ${this.#cached.size} PNGs in ${this.cacheDir} (${(this.#bytes / 1e6).toFixed(1)} MB)`);
  }
}
