import * as Plot from '@observablehq/plot';
import { linearTicks, opsTick } from './axes.js';
import { CHAR_EM } from './format.js';
import { LEGEND_CSS, type LegendEntry, legend, seriesScales } from './palette.js';
import { document, serialize } from './xml.js';

/**
 * A chart drawn by Plot at the two sizes it is read at, as SVG text with its words and legend, and
 * how a page shows it. The DOM it is drawn into and its serialisation are in xml.ts, the series'
 * colours and legend in palette.ts, number formats and text widths in format.ts.
 */

/** What every chart is: the SVG and what a reader needs without seeing it. */
export interface Chart {
  /** A slug, unique within its page: the permalink's last part. */
  id: string;
  title: string;
  /** Alt text: what the chart shows, in words. */
  alt: string;
  /** The chart drawn for a wide column (WIDE). */
  svg: string;
  /** The same chart drawn for a phone's column (NARROW): pages show one or the other (CHART_CSS). */
  narrow: string;
  /** The legend: each series, its colour and its mark. Pages draw it in HTML (it wraps); standalone files in SVG. */
  series: LegendEntry[];
  /** The numbers behind the chart, shown beside it. */
  table: { columns: string[]; rows: (string | number | null)[][] };
}

/**
 * A chart is drawn twice, each for the width it is read at, never shrunk past legibility: WIDE for
 * a column of 728 px or more (on the site's 1,152 px column its 11-unit text reads at 16 px, and at
 * 728 px still at 10), NARROW for anything narrower (a 390 px phone's column of about 358 px shows
 * its 12-unit text at 11 px). CHART_CSS picks one by the width of the chart's own box (a container
 * query), so the iframe at 600 px in a blog and a page on a phone both get the one that fits.
 */
export interface ChartSize {
  width: number;
  height: number;
  font: number;
}
export const WIDE: ChartSize = { width: 800, height: 400, font: 11 };
export const NARROW: ChartSize = { width: 380, height: 320, font: 12 };
/** The narrowest box WIDE is shown in: its text then reads at 10 CSS px. */
export const WIDE_FROM_PX = Math.ceil((WIDE.width * 10) / WIDE.font);
export const CHART_WIDTH = WIDE.width;
export const CHART_HEIGHT = WIDE.height;

/** Margins that hold the axis labels at a size's font: the y label above the frame, the x label below its ticks. */
export function margins(s: ChartSize): { top: number; right: number; bottom: number; left: number } {
  return { top: s.font + 16, right: 24, bottom: 2 * s.font + 16, left: 6 * s.font };
}
/** Room between the frame and the outermost marks: a dot stays inside. */
export const INSET = 10;
/** The dots' radius, and the line width, at each size: about 4 and 2 CSS px where the chart is read. */
export const DOT_R = 4;

/** The width tick labels need at a size's font, plus the tick and its gap: a left margin that holds them. */
export function marginFor(labels: readonly string[], s: ChartSize): number {
  const longest = Math.max(0, ...labels.map((l) => l.length));
  return Math.ceil(longest * CHAR_EM * s.font) + 14;
}

/**
 * A y axis of ops/s from 0 (sweeps, history): round ticks up to one at or above `max`, labelled
 * "250k", a grid, room above the top mark; and the left margin its labels need.
 */
export function opsAxis(max: number, s: ChartSize): { y: Plot.ScaleOptions; marginLeft: number } {
  const ticks = linearTicks(max, s === NARROW ? 4 : 5);
  return {
    y: {
      label: 'ops/s (median of trials)',
      grid: true,
      domain: [0, ticks.at(-1)!],
      ticks,
      tickFormat: opsTick,
      insetTop: INSET,
    },
    marginLeft: marginFor(ticks.map(opsTick), s),
  };
}

/** The right margin that holds half of the last x tick label (it is centred on its tick). */
export function marginRightFor(lastTickLabel: string, s: ChartSize): number {
  return Math.max(margins(s).right, Math.ceil((lastTickLabel.length * CHAR_EM * s.font) / 2) - INSET + 6);
}

/** Plot options for one size: a chart function says how it draws at each. */
export type Draw = (s: ChartSize) => Plot.PlotOptions;

/**
 * A chart at both sizes (WIDE, NARROW), each SVG text with a <title> and <desc>. Plot escapes text
 * it sets (labels, tips) and linkedom serialises text nodes escaped, so metadata such as a CPU model
 * cannot become markup; the site's hostile-metadata test checks this in a browser. An invisible frame
 * (aria-label "frame") marks the plot area: the site's tests hold every mark inside it.
 */
export function renderSvg(
  draw: Draw,
  title: string,
  alt: string,
  series: readonly string[] = [],
): { svg: string; narrow: string } {
  return {
    svg: renderOne(draw(WIDE), WIDE, title, alt, series),
    narrow: renderOne(draw(NARROW), NARROW, title, alt, series),
  };
}

function renderOne(
  options: Plot.PlotOptions,
  s: ChartSize,
  title: string,
  alt: string,
  series: readonly string[],
): string {
  const { x, y, marks, ...rest } = options;
  const m = margins(s);
  const svg = Plot.plot({
    width: s.width,
    height: s.height,
    marginTop: m.top,
    marginRight: m.right,
    marginBottom: m.bottom,
    marginLeft: m.left,
    ...rest,
    x: { labelOffset: 2 * s.font + 8, ...x },
    y,
    marks: [Plot.frame({ stroke: 'none' }), ...(marks ?? [])],
    ...seriesScales(series),
    document,
    // The alt text goes in <desc> (below) only: as aria-description too it was a second copy of
    // what is often a chart's largest text (every point in words), and a page holds two drawings.
    ariaLabel: title,
  } as Plot.PlotOptions) as unknown as Element;
  if (svg.tagName.toLowerCase() !== 'svg') throw new Error(`chart "${title}" did not render to one <svg>`);
  svg.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  svg.setAttribute('role', 'img');
  const kind = s === NARROW ? 'chart-narrow' : 'chart-wide';
  svg.setAttribute('class', `${svg.getAttribute('class') ?? ''} chart-svg ${kind}`.trim());
  svg.setAttribute('font-size', String(s.font));
  const t = document.createElementNS('http://www.w3.org/2000/svg', 'title');
  t.textContent = title;
  const d = document.createElementNS('http://www.w3.org/2000/svg', 'desc');
  d.textContent = alt;
  svg.insertBefore(d, svg.firstChild);
  svg.insertBefore(t, svg.firstChild);
  return serialize(svg);
}

/**
 * How a page shows these charts: across its box, the drawing made for that box's width. The box is
 * a size container, so the choice follows the column (or the iframe), not the window. The site's
 * pages and the iframe page both use it; a browser without container queries shows the wide one.
 */
export const CHART_CSS = `.chart-box{container-type:inline-size}
svg.chart-svg{display:block;width:100%;height:auto;max-width:none}
svg.chart-narrow{display:none}
@container (max-width:${WIDE_FROM_PX - 1}px){svg.chart-wide{display:none}svg.chart-narrow{display:block}}
${LEGEND_CSS}`;

/** Both drawings of a chart, for a page: CHART_CSS shows the one that fits its box. */
export function chartHtml(chart: Chart): string {
  return `<div class="chart-box">${chart.svg}${chart.narrow}</div>`;
}

/** What a chart says in words: its slug, title, alt text, and its series in legend order. */
export interface ChartWords {
  id: string;
  title: string;
  alt: string;
  series: readonly string[];
}

/** A chart that `draw` draws at both sizes, with its legend and the numbers behind it. */
export function drawChart(words: ChartWords, draw: Draw, table: Chart['table']): Chart {
  return chartOf(words, renderSvg(draw, words.title, words.alt, words.series), table);
}

/** A chart from its two drawings (renderSvg's, or a shape's own such as dotRowsSvg's). */
export function chartOf(
  words: ChartWords,
  drawings: { svg: string; narrow: string },
  table: Chart['table'],
): Chart {
  const { id, title, alt, series } = words;
  return { id, title, alt, ...drawings, series: legend(series), table };
}
