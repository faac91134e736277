import { PNG_SETTINGS } from '@redis-benchdb/db/png';
import { swatchSvg } from './charts/palette.js';
import { CHART_CSS, CHART_WIDTH, type Chart, chartHtml } from './charts/render.js';
import { standaloneSvg } from './charts/standalone.js';
import { escapeHtml } from './html.js';
import { paths } from './routes.js';
import { stageFile } from './stage.js';

/** The public origin embeds point at. Set REDIS_BENCHDB_SITE_URL when publishing; local builds point at the preview server. */
export function siteOrigin(): string {
  return (process.env.REDIS_BENCHDB_SITE_URL || 'http://localhost:4321').replace(/\/+$/, '');
}

export interface EmbedTarget {
  chart: Chart;
  /** The chart's iframe page, its SVG and PNG, and the page it belongs to (site paths). */
  pagePath: string;
  svgPath: string;
  /** Null when this build offers no PNGs (png.ts): links and snippets then use the SVG. */
  pngPath: string | null;
  sourcePath: string;
  /** One line saying where the numbers come from. */
  source: string;
  /** "frozen to result …" or "live: follows new results". */
  freshness: string;
  /** The date the chart stands for: "as of 2025-03-04" (frozen: its results' date) or "live, drawn 2026-11-24". */
  asOf: string;
}

/** A frozen chart's date: the newest of its results' run dates (their receipt, where a result has none). */
export function asOf(dates: readonly string[]): string {
  return `as of ${([...dates].sort().at(-1) ?? '').slice(0, 10)}`;
}

/** A live chart's date: the build's. */
export function drawnOn(now = new Date()): string {
  return `live, drawn ${now.toISOString().slice(0, 10)}`;
}

/** The iframe: as wide as the wide drawing (CHART_WIDTH) in the page's 8px padding; it narrows with a narrower column. */
export const EMBED_WIDTH = CHART_WIDTH + 16;

/**
 * The iframe's height before its page reports its own (or where the blog strips the snippet's
 * script): the wide drawing's, with its title, legend rows and source lines, at EMBED_WIDTH.
 */
export function embedHeight(chart: Chart): number {
  const svgHeight = Number(/viewBox="0 0 [\d.]+ ([\d.]+)"/.exec(chart.svg)?.[1] ?? 400);
  // A legend entry is its name at about 7.5 px a character, its mark and a gap, in rows of 800 px.
  let rows = chart.series.length ? 1 : 0;
  let x = 0;
  for (const e of chart.series) {
    const w = e.name.length * 7.5 + 34;
    if (x > 0 && x + w > CHART_WIDTH) {
      rows++;
      x = 0;
    }
    x += w;
  }
  return Math.ceil(16 + 22 + rows * 22 + svgHeight + 2 * 18 + 8);
}

/**
 * The message an embed page sends its parent with its height, and the snippet's listener for it:
 * the iframe then fits its chart at any width (the narrow drawing is shorter than the wide one, and
 * a legend wraps onto more rows). The listener takes heights from this site's origin only, and only
 * for the iframe that sent them.
 */
export const HEIGHT_MESSAGE = 'rbdbHeight';
function resizeListener(origin: string): string {
  return `<script>addEventListener("message",function(e){var h=e.data&&e.data.${HEIGHT_MESSAGE};if(e.origin!==${JSON.stringify(origin)}||typeof h!=="number")return;document.querySelectorAll("iframe[data-redis-benchdb]").forEach(function(f){if(f.contentWindow===e.source)f.style.height=Math.ceil(h)+"px"})})</script>`;
}

/** Copy-paste snippets: an iframe for HTML blogs, an image with a link for Markdown ones and for HTML. */
export function embedSnippets(t: EmbedTarget): {
  iframe: string;
  markdown: string;
  img: string;
  svg: string;
  png: string | null;
  permalink: string;
} {
  const o = siteOrigin();
  const title = escapeHtml(t.chart.title);
  const image = o + (t.pngPath ?? t.svgPath);
  return {
    permalink: o + t.pagePath,
    svg: o + t.svgPath,
    png: t.pngPath === null ? null : o + t.pngPath,
    iframe: `<iframe src="${o}${t.pagePath}" title="${title}" width="${EMBED_WIDTH}" height="${embedHeight(t.chart)}" style="border:0;max-width:100%" loading="lazy" data-redis-benchdb></iframe>${resizeListener(o)}`,
    // A PNG where the build has them (most Markdown hosts take it); the SVG otherwise, which GitHub and browsers show.
    markdown: `[![${t.chart.title.replace(/[[\]]/g, '')}](${image})](${o}${t.sourcePath})\n\n*Source: [redis-benchdb](${o}${t.sourcePath}), ${t.source.replace(/[[\]*_]/g, '')}, ${t.asOf}*`,
    img: `<a href="${escapeHtml(o + t.sourcePath)}"><img src="${escapeHtml(image)}" alt="${title}" width="${STANDALONE_PX}" style="max-width:100%;height:auto"></a>`,
  };
}

/** The width an image embed is offered at, and its PNG drawn at: a blog's column, where its text reads at 14 to 20 px. */
export const STANDALONE_PX = PNG_SETTINGS.chartWidthPx;

/**
 * The iframe page: only the chart and its source line, no site chrome. Its one script tells the
 * page around it how tall it is (embedSnippets' listener). Its links open a new tab: in a blog's
 * iframe, the page around it is the reader's, not ours to navigate away.
 */
export function embedPage(t: EmbedTarget): string {
  const o = siteOrigin();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(t.chart.title)} · redis-benchdb</title>
<link rel="canonical" href="${escapeHtml(o + t.pagePath)}"><link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>body{margin:0;padding:8px;display:flow-root;font:14px/1.4 system-ui,sans-serif;color:#111;background:#fff}figure{margin:0}figcaption{font-size:12px;color:#444;overflow-wrap:anywhere}a{color:#0b57d0}
${CHART_CSS}</style>
</head><body><figure>
<figcaption><strong>${escapeHtml(t.chart.title)}</strong></figcaption>
${legendHtml(t.chart)}${chartHtml(t.chart)}
<figcaption class="source">Source: <a href="${escapeHtml(o + t.sourcePath)}" target="_blank" rel="noopener">${escapeHtml(t.source)}</a> · ${escapeHtml(t.asOf)} · ${escapeHtml(t.freshness)} · <a href="${escapeHtml(o + t.svgPath)}" target="_blank" rel="noopener">SVG</a> · <a href="${escapeHtml(o + paths.methodology())}" target="_blank" rel="noopener">Methodology</a></figcaption>
</figure>
<script>(function(){function say(){parent.postMessage({${HEIGHT_MESSAGE}:document.body.getBoundingClientRect().height},"*")}addEventListener("load",say);new ResizeObserver(say).observe(document.body)})()</script>
</body></html>
`;
}

function legendHtml(chart: Chart): string {
  if (chart.series.length === 0) return '';
  const items = chart.series.map((e) => `<li>${swatchSvg(e)}${escapeHtml(e.name)}</li>`);
  return `<ul class="chart-legend">${items.join('')}</ul>\n`;
}

/** A chart's own files: the standalone SVG (title and source drawn in) and its iframe page. */
export function stageEmbed(t: EmbedTarget): void {
  stageFile(
    t.svgPath,
    standaloneSvg(t.chart, { text: t.source, url: siteOrigin() + t.sourcePath, asOf: t.asOf }),
  );
  stageFile(t.pagePath, embedPage(t));
}
