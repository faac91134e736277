// pnpm site:screenshots [--dist site/dist] [--out docs/screenshots] [--width 390]: pictures of the built site for
// docs/, so a reader sees it without building it. Home, a result, a compare of two results that share
// workloads, and an embed, in Debian's headless Chromium.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { launchChromium } from '../site/tools/chromium.mjs';
import { serveStatic } from '../site/tools/serve-static.mjs';

const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: 'site/dist' },
    // A phone's width (390) names its files "<name>-390.png".
    width: { type: 'string', default: '1200' },
    out: { type: 'string', default: 'docs/screenshots' },
  },
});
const dist = resolve(values.dist);
const width = Number(values.width);
const index = JSON.parse(readFileSync(join(dist, 'data/index.json'), 'utf8'));
// Suite runs have every sweep to show; ad hoc runs (-t set,get) may have none. The full profile
// first, then the fewest warnings: a picture of the site should not show a result that a warning
// sets apart (io-threads on one CPU, say) as if it were typical.
const signed = index
  .filter((r) => r.kind === 'signed')
  .sort(
    (a, b) =>
      Number(!!b.profile) - Number(!!a.profile) ||
      Number(b.profile === 'full') - Number(a.profile === 'full') ||
      a.warnings - b.warnings,
  );
if (signed.length === 0)
  throw new Error(
    `no signed result in ${dist}: run \`pnpm -s redis-benchdb run\` and \`pnpm site:build\` first`,
  );
const compareIds = (
  signed.length >= 2 ? signed.slice(0, 2) : [signed[0], index.find((r) => r.kind === 'imported')]
).filter(Boolean);
const result = signed[0].id;
const shots = [
  ['home', '/'],
  ['result', `/results/${result}/`],
  ['compare', `/compare/?r=${compareIds.map((r) => r.id.slice(0, 12)).join(',')}`],
  ['embed', `/results/${result}/charts/pipeline.html`],
  // The other embed kinds: the chart as an SVG file and as a PNG, as a blog's <img> shows them.
  ['embed-svg', `/results/${result}/charts/pipeline.svg`],
  ['embed-png', `/results/${result}/charts/pipeline.png`],
  ['explore', '/explore/'],
];
const groups = existsSync(join(dist, 'groups')) ? readdirSync(join(dist, 'groups')) : [];
if (groups.length) shots.push(['group', `/groups/${groups[0]}/`]);
// A version page: the newest version's, where the dataset sets every server side by side.
const versions = existsSync(join(dist, 'versions'))
  ? readdirSync(join(dist, 'versions')).filter((d) => existsSync(join(dist, 'versions', d, 'index.html')))
  : [];
if (versions.length) shots.push(['version', `/versions/${versions.sort().at(-1)}/`]);
// A picture of a broken image is worse than none: the PNGs are drawn only by a build asked for them.
for (const [, path] of shots)
  if (/\.(svg|png)$/.test(path) && !existsSync(join(dist, path))) {
    console.error(
      `site-screenshots: ${join(dist, path)} is missing: build the site with its PNGs first (pnpm site:build --png), then run this again`,
    );
    process.exit(2);
  }
mkdirSync(values.out, { recursive: true });
const server = await serveStatic(dist);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  for (const [name, path] of shots) {
    // An image embed is shown as a blog shows it: its image snippet, an <img> 600 px wide at most.
    if (/\.(svg|png)$/.test(path)) {
      await page.goto(`${server.url}/`, { waitUntil: 'networkidle' });
      await page.setContent(
        `<body style="margin:10px;background:#fff"><img src="${server.url + path}" width="600" style="max-width:100%;height:auto"></body>`,
        { waitUntil: 'load' },
      );
    } else {
      // The iframe page at most as wide as the snippet's iframe (816 px), as a blog shows it.
      await page.setViewportSize({ width: name === 'embed' ? Math.min(width, 816) : width, height: 900 });
      await page.goto(server.url + path, { waitUntil: 'networkidle' });
    }
    const file = join(values.out, width === 1200 ? `${name}.png` : `${name}-${width}.png`);
    await page.screenshot({
      path: file,
      fullPage: true,
      // An embed to its own height (an iframe page's, or the image's), not a fixed box that cut it.
      clip: name.startsWith('embed')
        ? {
            x: 0,
            y: 0,
            width: Math.min(816, width),
            height: await page.evaluate(() =>
              Math.ceil(
                Math.max(...[...document.body.children].map((e) => e.getBoundingClientRect().bottom)) + 10,
              ),
            ),
          }
        : undefined,
    });
    console.log(`${file}  ${path}`);
  }
} finally {
  await browser.close();
  await server.close();
}
