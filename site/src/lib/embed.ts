import { CHART_CSS, CHART_WIDTH, type Chart, standaloneSvg } from './charts/render.js';
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

/** The iframe: the chart at its drawn size (CHART_WIDTH) in the page's 8px margins; it shrinks with a narrower column. */
export const EMBED_WIDTH = CHART_WIDTH + 16;
export const EMBED_HEIGHT = 540;

/** Copy-paste snippets: an iframe for HTML blogs, an image with a link for Markdown ones. */
export function embedSnippets(t: EmbedTarget): {
  iframe: string;
  markdown: string;
  svg: string;
  png: string | null;
  permalink: string;
} {
  const o = siteOrigin();
  const title = escapeHtml(t.chart.title);
  return {
    permalink: o + t.pagePath,
    svg: o + t.svgPath,
    png: t.pngPath === null ? null : o + t.pngPath,
    iframe: `<iframe src="${o}${t.pagePath}" title="${title}" width="${EMBED_WIDTH}" height="${EMBED_HEIGHT}" style="border:0;max-width:100%" loading="lazy"></iframe>`,
    // A PNG where the build has them (most Markdown hosts take it); the SVG otherwise, which GitHub and browsers show.
    markdown: `[![${t.chart.title.replace(/[[\]]/g, '')}](${o}${t.pngPath ?? t.svgPath})](${o}${t.sourcePath})\n\n*Source: [redis-benchdb](${o}${t.sourcePath}), ${t.source.replace(/[[\]*_]/g, '')}, ${t.asOf}*`,
  };
}

/**
 * The iframe page: only the chart and its source line, no site chrome, no script. Its links open a
 * new tab: in a blog's iframe, the page around it is the reader's, not ours to navigate away.
 */
export function embedPage(t: EmbedTarget): string {
  const o = siteOrigin();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(t.chart.title)} · redis-benchdb</title>
<link rel="canonical" href="${escapeHtml(o + t.pagePath)}"><link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#111;background:#fff}figure{margin:8px}figcaption{font-size:12px;color:#444}a{color:#0b57d0}
${CHART_CSS}</style>
</head><body><figure>
<figcaption><strong>${escapeHtml(t.chart.title)}</strong></figcaption>
${legendHtml(t.chart)}${t.chart.svg}
<figcaption class="source">Source: <a href="${escapeHtml(o + t.sourcePath)}" target="_blank" rel="noopener">${escapeHtml(t.source)}</a> · ${escapeHtml(t.asOf)} · ${escapeHtml(t.freshness)} · <a href="${escapeHtml(o + t.svgPath)}" target="_blank" rel="noopener">SVG</a> · <a href="${escapeHtml(o + paths.methodology())}" target="_blank" rel="noopener">Methodology</a></figcaption>
</figure></body></html>
`;
}

function legendHtml(chart: Chart): string {
  if (chart.series.length === 0) return '';
  const items = chart.series.map(
    (e) =>
      `<li><span class="swatch" style="background:${escapeHtml(e.color)}"></span>${escapeHtml(e.name)}</li>`,
  );
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
