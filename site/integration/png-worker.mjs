// Renders SVG files to PNG in a worker thread: resvg is synchronous and takes ~10 ms a chart, so
// the build spreads the work over the machine's cores.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { Resvg } from '@resvg/resvg-js';

const fontOptions = {
  loadSystemFonts: workerData.fontFiles.length === 0,
  fontFiles: workerData.fontFiles,
  defaultFontFamily: 'DejaVu Sans',
  sansSerifFamily: 'DejaVu Sans',
};

parentPort.on('message', (jobs) => {
  // One chart resvg cannot parse (text that is not XML) loses its PNG, not the build's other charts.
  const failed = [];
  for (const { svgFile, pngFile, width } of jobs) {
    try {
      // Plot's SVG inherits its text colour from the page (currentColor): a PNG has no page, so say black.
      const svg = readFileSync(svgFile, 'utf8').replace('<svg', '<svg color="#111" style="background:#fff"');
      const png = new Resvg(svg, {
        font: fontOptions,
        fitTo: { mode: 'width', value: width },
        background: '#ffffff',
      })
        .render()
        .asPng();
      // pngFile is in a cache that other builds read (two site builds at once, as the tests run):
      // whole or absent, never half-written.
      const partial = `${pngFile}.${process.pid}-${threadId}.partial`;
      writeFileSync(partial, png);
      renameSync(partial, pngFile);
    } catch (e) {
      failed.push({ svgFile, error: String(e?.message ?? e).split('\n')[0] });
    }
  }
  parentPort.postMessage({ done: jobs.length, failed });
});
