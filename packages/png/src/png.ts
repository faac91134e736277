import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Resvg } from '@resvg/resvg-js';
import Tinypool from 'tinypool';

/**
 * How a chart's SVG becomes a PNG, said once. The site build (`pnpm site:build --png`, and the site's
 * Open Graph card) and the publishing service (PNGs drawn when first asked) both draw through this
 * module, so a PNG is the same whichever drew it, and a PNG one cached is the other's to serve.
 * A package of its own (it was in db only because site and server may both import db): it needs
 * nothing of the database or the result format, only resvg and a worker pool.
 */
export const PNG_SETTINGS = {
  /** Loaded from these files where they exist (the Docker image and CI have DejaVu), else the system's fonts. */
  fontFiles: [
    '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
    '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
  ],
  fontFamily: 'DejaVu Sans',
  /** Plot's SVG inherits its text colour from the page (currentColor): a PNG has no page, so say black. */
  textColour: '#111',
  background: '#fff',
  /**
   * A chart's width: its standalone SVG (about 380 units, the narrow drawing) at 1.6x, a blog
   * column's, where its text reads at 18 px; the site offers its image embeds at this width.
   */
  chartWidthPx: 600,
  /** An Open Graph card's (og.svg). */
  cardWidthPx: 1200,
} as const;

/** The width the PNG beside this SVG (or PNG) path is drawn at. */
export function pngWidthOf(path: string): number {
  return /(^|\/)og\.(svg|png)$/.test(path) ? PNG_SETTINGS.cardWidthPx : PNG_SETTINGS.chartWidthPx;
}

/**
 * A drawn PNG's cache file name: by the SVG's content (its SHA-256 in hex) and the width, so it never
 * goes stale, and the build's cache and the service's agree.
 */
export function pngCacheName(svgSha256: string, width: number): string {
  return `${createHash('sha256').update(`${svgSha256} ${width}`).digest('hex')}.png`;
}

let fontOptions: ReturnType<typeof fonts> | null = null;

/** SVG text → PNG bytes, `width` pixels wide. Synchronous, 10-20 ms a chart: call it on a worker thread (pngPool). */
export function drawPng(svg: string, width: number): Uint8Array {
  fontOptions ??= fonts();
  const s = PNG_SETTINGS;
  const painted = svg.replace('<svg', `<svg color="${s.textColour}" style="background:${s.background}"`);
  return new Resvg(painted, {
    font: fontOptions,
    fitTo: { mode: 'width', value: width },
    background: s.background,
  })
    .render()
    .asPng();
}

function fonts() {
  const fontFiles = PNG_SETTINGS.fontFiles.filter((f) => existsSync(f));
  return {
    loadSystemFonts: fontFiles.length === 0,
    fontFiles,
    defaultFontFamily: PNG_SETTINGS.fontFamily,
    sansSerifFamily: PNG_SETTINGS.fontFamily,
  };
}

/** What a drawing thread (png-worker.ts) is asked. */
export interface PngTask {
  /** The SVG's bytes (moved to the thread, not copied). */
  svg: Uint8Array;
  width: number;
}

export interface PngReply {
  png: Uint8Array;
  /** Time the drawing took on its thread, ms: the service's estimate of a wait. */
  ms: number;
}

/** Worker threads that draw PNGs (tinypool): the build uses every core, the service one. */
export interface PngPool {
  /** Draw an SVG read from a file; its memory moves to the thread when the buffer owns it. */
  draw(svg: Buffer, width: number): Promise<PngReply>;
  close(): Promise<void>;
}

export function pngPool(maxThreads: number): PngPool {
  const pool = new Tinypool({
    filename: fileURLToPath(new URL('./png-worker.js', import.meta.url)),
    minThreads: 0,
    maxThreads,
    idleTimeout: 30_000,
  });
  return {
    async draw(svg, width) {
      // Moved, not copied, when the buffer owns its memory (readFile's does, past Node's small-buffer pool).
      const own =
        svg.byteOffset === 0 && svg.byteLength === svg.buffer.byteLength && svg.buffer instanceof ArrayBuffer;
      const task: PngTask = { svg, width };
      return (await pool.run(task, { transferList: own ? [svg.buffer as ArrayBuffer] : [] })) as PngReply;
    },
    close: () => pool.destroy(),
  };
}
