// A site build for png-burst.test.ts (--site-build "node heavy-charts-build.mjs"): an index and
// $CHARTS chart SVGs, each distinct, with 300 shapes and padding to about 1.5 MiB, so that
// each takes real time and memory to read and draw. Synthetic: it stands for no result.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = process.env.REDIS_BENCHDB_SITE_OUT;
const charts = Number(process.env.CHARTS ?? 400);
mkdirSync(join(out, 'charts'), { recursive: true });
writeFileSync(join(out, 'index.html'), '<p>heavy charts</p>');
const pad = `<!--${'x'.repeat(1.5 * 1024 * 1024)}-->`;
for (let i = 0; i < charts; i++) {
  const shapes = [];
  for (let j = 0; j < 300; j++)
    shapes.push(
      `<circle cx="${(j * 37 + i) % 960}" cy="${(j * 53 + i * 7) % 600}" r="${3 + (j % 9)}" fill="#${((i * 2654435761 + j * 40503) >>> 8).toString(16).padStart(6, '0').slice(0, 6)}" opacity="0.6"/>`,
    );
  writeFileSync(
    join(out, 'charts', `c${i}.svg`),
    `<svg xmlns="http://www.w3.org/2000/svg" width="960" height="600">${shapes.join('')}${pad}</svg>`,
  );
}
