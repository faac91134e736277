// Draws one chart SVG as a PNG on a worker thread of pngPool (png.ts): resvg is synchronous, 10-20 ms
// a chart, and neither the service's event loop nor the build's main thread should wait on it.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { drawPng, type PngReply, type PngTask } from './png.js';

// resvg's tree and pixels live outside the JS heap, freed only when their small JS wrappers are
// collected, which a heap this quiet rarely does: a burst of drawings held hundreds of MiB. Collect
// after each drawing (a few ms against the drawing's tens to hundreds).
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

export default function draw({ svg, width }: PngTask): PngReply {
  const started = performance.now();
  const text = Buffer.from(svg.buffer, svg.byteOffset, svg.byteLength).toString('utf8');
  const png = drawPng(text, width);
  collect();
  return { png, ms: performance.now() - started };
}
