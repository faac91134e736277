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
import { join, sep } from 'node:path';
import { type PngPool, pngCacheName, pngPool, pngWidthOf } from '@redis-benchdb/png';
import { HttpError } from '../http-error.js';

/** A chart's PNG: a path of plain segments (no dot files) ending in .png, as the site names them. */
const CHART_PNG = /^(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)+\.png$/;
/** Charts are 10-60 KB of SVG; a file far larger is not one of ours, and would take long to draw. */
const MAX_SVG_BYTES = 2 * 1024 * 1024;
/**
 * SVG bytes read and waiting to be drawn, at most: what a burst may hold in memory. 200 requests at
 * once for 1.5 MiB charts read 300 MiB of SVG before any was refused (peak RSS 906 MiB, issue 30
 * item 9); past this, a request is answered 503 before its SVG is read.
 */
export const MAX_SVG_BYTES_IN_FLIGHT = 16 * 1024 * 1024;
/**
 * The longest a request may expect to wait for its drawing (the drawings ahead of it times the
 * recent time of one): past it, 503 with retry-after, well within any client's or proxy's timeout.
 */
export const MAX_DRAW_WAIT_MS = 4000;
/** Charts whose cache name is known by the file's identity (path, size, mtime), so a hit reads nothing. */
const MAX_KNOWN_FILES = 10_000;

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
 * build's renderer and settings (@redis-benchdb/png), and kept in a cache bounded in bytes. A site built
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
  readonly #pool: PngPool;
  /** Cached PNGs and their sizes, least recently used first (a Map keeps insertion order). */
  readonly #cached = new Map<string, number>();
  #bytes = 0;
  readonly #drawing = new Map<string, Promise<void>>();
  #ready: Promise<void> | null = null;
  /** Cache names by SVG file identity (`path size mtime`), most recent last. */
  readonly #known = new Map<string, string>();
  /** SVG bytes read for drawings under way or waiting. */
  #svgBytes = 0;
  /** A moving average of one drawing's time, ms (the first includes the thread's start). */
  #drawMs = 200;

  constructor(options: PngOnRequestOptions) {
    this.#o = options;
    this.cacheDir = options.cacheDir;
    this.#pool = pngPool(1);
  }

  /**
   * The cache file (a name in cacheDir) of the PNG at site path `path` under `root`, drawn now if need
   * be; null when the path is not a chart's PNG or the site has no SVG for it. Throws HttpError 503
   * when too many are being drawn, 500 when the SVG cannot be drawn.
   */
  async png(root: string, path: string): Promise<string | null> {
    if (!CHART_PNG.test(path)) return null;
    const file = await this.#svgFileOf(root, path);
    if (file === null) return null;
    await (this.#ready ??= this.#load());
    const identity = `${file.path} ${file.size} ${file.mtimeMs}`;
    const known = this.#known.get(identity);
    if (known !== undefined && this.#cached.has(known)) {
      this.#touch(known);
      return known;
    }
    // Refused before the SVG is read: the burst's memory is what is admitted, never what is asked.
    // The bytes stay counted until the drawing that holds them settles, even if this request stops
    // waiting for it first.
    this.#admit(path, file.size);
    this.#svgBytes += file.size;
    let release: (() => void) | null = () => {
      this.#svgBytes -= file.size;
    };
    try {
      const svg = await readFile(file.path);
      // As the site build keys its cache: the SVG's hash, then the width.
      const width = pngWidthOf(path);
      const name = pngCacheName(createHash('sha256').update(svg).digest('hex'), width);
      this.#remember(identity, name);
      if (this.#cached.has(name)) {
        this.#touch(name);
        return name;
      }
      let drawing = this.#drawing.get(name);
      if (!drawing) {
        const done = release;
        release = null;
        drawing = this.#draw(name, svg, width, path).finally(() => {
          this.#drawing.delete(name);
          done();
        });
        this.#drawing.set(name, drawing);
      }
      await this.#within(drawing, path);
      return name;
    } finally {
      release?.();
    }
  }

  /** Throws 503 BUSY when this drawing would wait too long, or its SVG would not fit in memory. */
  #admit(path: string, bytes: number): void {
    const waitMs = (this.#drawing.size + 1) * this.#drawMs;
    const full =
      this.#drawing.size >= this.#o.maxQueued ||
      waitMs > MAX_DRAW_WAIT_MS ||
      (this.#svgBytes > 0 && this.#svgBytes + bytes > MAX_SVG_BYTES_IN_FLIGHT);
    if (!full) return;
    const retryAfterSec = Math.max(1, Math.ceil(waitMs / 1000));
    throw new HttpError(
      'BUSY',
      503,
      `${this.#drawing.size} chart PNGs are being drawn; try again in ${retryAfterSec} s, or use the chart's SVG (${path.replace(/\.png$/, '.svg')})`,
      retryAfterSec,
    );
  }

  /**
   * Wait for a drawing, at most twice the admitted wait: an estimate can be wrong (a chart far slower
   * than the last ones), and every request must get an answer. The drawing goes on and is kept; the
   * client is told to come back for it.
   */
  async #within(drawing: Promise<void>, path: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), 2 * MAX_DRAW_WAIT_MS);
    });
    try {
      if ((await Promise.race([drawing, late])) === 'late')
        throw new HttpError(
          'BUSY',
          503,
          `the chart ${path} is still being drawn; try again in ${Math.ceil(MAX_DRAW_WAIT_MS / 1000)} s, or use its SVG (${path.replace(/\.png$/, '.svg')})`,
          Math.ceil(MAX_DRAW_WAIT_MS / 1000),
        );
    } finally {
      clearTimeout(timer);
    }
  }

  #remember(identity: string, name: string): void {
    this.#known.delete(identity);
    this.#known.set(identity, name);
    if (this.#known.size > MAX_KNOWN_FILES) this.#known.delete(this.#known.keys().next().value!);
  }

  /** Stop the drawing thread (the service is closing). */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  /** `path`'s SVG, if it is a regular file inside root and the size of a chart: its real path, size and mtime. */
  async #svgFileOf(
    root: string,
    path: string,
  ): Promise<{ path: string; size: number; mtimeMs: number } | null> {
    const file = join(root, path.replace(/\.png$/, '.svg'));
    const found = await lstat(file).catch(() => null);
    if (!found?.isFile() || found.size > MAX_SVG_BYTES) return null;
    // A directory on the way could still be a link out of the site: compare the real paths.
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file)]);
    if (!realFile.startsWith(realRoot + sep)) return null;
    return { path: realFile, size: found.size, mtimeMs: found.mtimeMs };
  }

  async #draw(name: string, svg: Buffer, width: number, path: string): Promise<void> {
    let png: Uint8Array;
    try {
      const reply = await this.#pool.draw(svg, width);
      png = reply.png;
      this.#drawMs += (reply.ms - this.#drawMs) / 8;
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
