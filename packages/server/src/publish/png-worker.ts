// Draws one chart SVG as a PNG on a worker thread (tinypool): resvg is synchronous, 10-20 ms a chart,
// and the service's event loop must keep answering meanwhile. The same renderer and settings as the
// site build's `--png` (site/integration/png-worker.mjs), so a PNG is the same drawn either way.
import { existsSync } from 'node:fs';
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

export interface PngTask {
  svg: string;
  width: number;
}

export default function draw({ svg, width }: PngTask): Uint8Array {
  // Plot's SVG inherits its text colour from the page (currentColor): a PNG has no page, so say black.
  const withColour = svg.replace('<svg', '<svg color="#111" style="background:#fff"');
  return new Resvg(withColour, { font, fitTo: { mode: 'width', value: width }, background: '#ffffff' })
    .render()
    .asPng();
}
