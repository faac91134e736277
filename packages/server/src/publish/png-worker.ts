// Draws one chart SVG as a PNG on a worker thread (tinypool): resvg is synchronous, 10-20 ms a chart,
// and the service's event loop must keep answering meanwhile. The same renderer and settings as the
// site build's `--png` (site/integration/png-worker.mjs), so a PNG is the same drawn either way.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Resvg } from '@resvg/resvg-js';

const FONT_CANDIDATES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
];
const fontFiles = FONT_CANDIDATES.filter((f) => existsSync(f));
const font = {
  loadSystemFonts: fontFiles.length === 0,
  fontFiles,
  defaultFontFamily: 'DejaVu Sans',
  sansSerifFamily: 'DejaVu Sans',
};

// resvg's tree and pixels live outside the JS heap, freed only when their small JS wrappers are
// collected, which a heap this quiet rarely does: a burst of drawings held hundreds of MiB. Collect
// after each drawing (a few ms against the drawing's tens to hundreds).
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

export interface PngTask {
  /** The SVG's bytes (moved here from the service's thread, not copied). */
  svg: Uint8Array;
  width: number;
}

export interface PngReply {
  png: Uint8Array;
  /** Time the drawing took on this thread, ms: the service's estimate of a wait. */
  ms: number;
}

export default function draw({ svg, width }: PngTask): PngReply {
  const started = performance.now();
  // Plot's SVG inherits its text colour from the page (currentColor): a PNG has no page, so say black.
  const text = Buffer.from(svg.buffer, svg.byteOffset, svg.byteLength).toString('utf8');
  const withColour = text.replace('<svg', '<svg color="#111" style="background:#fff"');
  const png = new Resvg(withColour, { font, fitTo: { mode: 'width', value: width }, background: '#ffffff' })
    .render()
    .asPng();
  collect();
  return { png, ms: performance.now() - started };
}
