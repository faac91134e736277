import { PNG_SETTINGS } from '@redis-benchdb/png';
import { stageFile } from '../build/stage.js';
import { swatchSvg } from '../charts/palette.js';
import { CHART_CSS, CHART_WIDTH, type Chart, chartHtml } from '../charts/render.js';
import { standaloneSvg } from '../charts/standalone.js';
import { paths } from '../routes/routes.js';
import { escapeHtml } from '../text/html.js';

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

/** A live chart's date: the build's, said as such (issue 44: the build day appears only as "built on"). */
export function drawnOn(now = new Date()): string {
  return `live, built on ${now.toISOString().slice(0, 10)}`;
}

/** The iframe: as wide as the wide drawing (CHART_WIDTH) in the page's 8px padding; it narrows with a narrower column. */
export const EMBED_WIDTH = CHART_WIDTH + 16;

/**
 * The iframe's height, the same for every chart: the wide drawing with its title, two legend rows and
 * the source line at EMBED_WIDTH. The page inside lays itself out to whatever frame it is given (the
 * drawing shrinks to the room left by the title, legend and source line), so no script has to resize
 * the frame: many blog platforms strip scripts from a post.
 */
export const EMBED_HEIGHT = 540;

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
    iframe: `<iframe src="${o}${t.pagePath}" title="${title}" width="${EMBED_WIDTH}" height="${EMBED_HEIGHT}" style="border:0;max-width:100%" loading="lazy"></iframe>`,
    // A PNG where the build has them (most Markdown hosts take it); the SVG otherwise, which GitHub and browsers show.
    markdown: `[![${t.chart.title.replace(/[[\]]/g, '')}](${image})](${o}${t.sourcePath})\n\n*Source: [redis-benchdb](${o}${t.sourcePath}), ${t.source.replace(/[[\]*_]/g, '')}, ${t.asOf}*`,
    img: `<a href="${escapeHtml(o + t.sourcePath)}"><img src="${escapeHtml(image)}" alt="${title}" width="${STANDALONE_PX}" style="max-width:100%;height:auto"></a>`,
  };
}

/** The width an image embed is offered at, and its PNG drawn at: a blog's column, where its text reads at 14 to 20 px. */
export const STANDALONE_PX = PNG_SETTINGS.chartWidthPx;

/**
 * The iframe page: only the chart and its source line, no site chrome, and no script. It fills the
 * frame's height: the title, legend and source line keep theirs, and the drawing (CHART_CSS picks the
 * wide or the narrow one by the width) is scaled to fit what is left, so the whole chart and its
 * source line show in a frame of any size. Its links open a new tab: in a blog's iframe, the page
 * around it is the reader's, not ours to navigate away.
 */
export function embedPage(t: EmbedTarget): string {
  const o = siteOrigin();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(t.chart.title)} · redis-benchdb</title>
<link rel="canonical" href="${escapeHtml(o + t.pagePath)}"><link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>html,body{height:100%}body{margin:0;padding:8px;box-sizing:border-box;display:flex;flex-direction:column;overflow:hidden;font:14px/1.4 system-ui,sans-serif;color:#111;background:#fff}figure{margin:0;flex:1;min-height:0;display:flex;flex-direction:column}figcaption{flex:none;font-size:12px;color:#444;overflow-wrap:anywhere}a{color:#0b57d0}
${CHART_CSS}
figure>.chart-legend{flex:none;max-height:40%;overflow:auto}figure>.chart-box{flex:1 1 0;min-height:0;container-type:size}figure>.chart-box>svg.chart-svg{height:100%}</style>
</head><body><figure>
<figcaption><strong>${escapeHtml(t.chart.title)}</strong></figcaption>
${legendHtml(t.chart)}${chartHtml(t.chart)}
<figcaption class="source">Source: <a href="${escapeHtml(o + t.sourcePath)}" target="_blank" rel="noopener">${escapeHtml(t.source)}</a> · ${escapeHtml(t.asOf)} · ${escapeHtml(t.freshness)} · <a href="${escapeHtml(o + t.svgPath)}" target="_blank" rel="noopener">SVG</a> · <a href="${escapeHtml(o + paths.methodology())}" target="_blank" rel="noopener">Methodology</a></figcaption>
</figure>
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
