import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';
import { linearTicks, opsTick } from './axes.js';

/**
 * Charts render at build time, on the server: Plot draws into a DOM we give it (linkedom, a light
 * one; a chart takes about 2 ms) and we keep the SVG text. So a page shows its charts with
 * JavaScript off, and the same text is the downloadable .svg.
 */
const { document } = parseHTML('<!doctype html><html><head></head><body></body></html>');

/** What every chart is: the SVG and what a reader needs without seeing it. */
export interface Chart {
  /** A slug, unique within its page: the permalink's last part. */
  id: string;
  title: string;
  /** Alt text: what the chart shows, in words. */
  alt: string;
  svg: string;
  /** The legend: each series and its colour. Pages draw it in HTML (it wraps); standalone files in SVG. */
  series: LegendEntry[];
  /** The numbers behind the chart, shown beside it. */
  table: { columns: string[]; rows: (string | number | null)[][] };
}

export interface LegendEntry {
  name: string;
  color: string;
}

/**
 * A chart is drawn once, at this size, and scaled by the page to its column: on a 1,152 px column
 * the 11-unit text reads at 16 px, like the page's. On a phone (about 370 px) the page sets the
 * text to PHONE_FONT units (10 px there, see Base.astro): every margin below leaves room for text of
 * that size, so the same SVG reads on both.
 */
export const CHART_WIDTH = 800;
export const CHART_HEIGHT = 400;
export const CHART_FONT = 11;
export const PHONE_FONT = 22;
/** Margins that hold axis labels at PHONE_FONT: the y label above the frame, the x label below its ticks. */
export const MARGIN = { top: PHONE_FONT + 18, right: 32, bottom: 2 * PHONE_FONT + 18, left: 72 };
/** Room between the frame and the outermost marks: a dot (r up to 6 on a phone) stays inside. */
export const INSET = 12;

/** The width tick labels need at PHONE_FONT, plus the tick and its gap: a left margin that holds them. */
export function marginFor(labels: readonly string[]): number {
  const longest = Math.max(0, ...labels.map((l) => l.length));
  return Math.ceil(longest * CHAR_EM * PHONE_FONT) + 16;
}

/**
 * A y axis of ops/s from 0 (sweeps, history): round ticks up to one at or above `max`, labelled
 * "250k", a grid, room above the top mark; and the left margin its labels need.
 */
export function opsAxis(max: number): { y: Plot.ScaleOptions; marginLeft: number } {
  const ticks = linearTicks(max);
  return {
    y: {
      label: 'ops/s (median of trials)',
      grid: true,
      domain: [0, ticks.at(-1)!],
      ticks,
      tickFormat: opsTick,
      insetTop: INSET,
    },
    marginLeft: marginFor(ticks.map(opsTick)),
  };
}

/** The right margin that holds half of the last x tick label (it is centred on its tick) at PHONE_FONT. */
export function marginRightFor(lastTickLabel: string): number {
  return Math.max(MARGIN.right, Math.ceil((lastTickLabel.length * CHAR_EM * PHONE_FONT) / 2) - INSET + 6);
}

/**
 * Plot options to SVG text with a <title> and <desc>. Plot escapes text it sets (labels, tips) and
 * linkedom serialises text nodes escaped, so metadata such as a CPU model cannot become markup; the
 * site's hostile-metadata test checks this in a browser. An invisible frame (aria-label "frame")
 * marks the plot area: the site's tests hold every mark inside it.
 */
export function renderSvg(
  options: Plot.PlotOptions,
  title: string,
  alt: string,
  series: readonly string[] = [],
): string {
  const { x, y, marks, ...rest } = options;
  const svg = Plot.plot({
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    marginTop: MARGIN.top,
    marginRight: MARGIN.right,
    marginBottom: MARGIN.bottom,
    marginLeft: MARGIN.left,
    ...rest,
    x: { labelOffset: 2 * PHONE_FONT + 8, ...x },
    y,
    marks: [Plot.frame({ stroke: 'none' }), ...(marks ?? [])],
    color: { domain: series, range: PALETTE },
    document,
    ariaLabel: title,
    ariaDescription: alt,
  } as Plot.PlotOptions) as unknown as Element;
  if (svg.tagName.toLowerCase() !== 'svg') throw new Error(`chart "${title}" did not render to one <svg>`);
  svg.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  svg.setAttribute('role', 'img');
  svg.setAttribute('class', `${svg.getAttribute('class') ?? ''} chart-svg`.trim());
  // An attribute, not a style: the page's CSS must be able to enlarge the text on a phone.
  svg.setAttribute('font-size', String(CHART_FONT));
  const t = document.createElementNS('http://www.w3.org/2000/svg', 'title');
  t.textContent = title;
  const d = document.createElementNS('http://www.w3.org/2000/svg', 'desc');
  d.textContent = alt;
  svg.insertBefore(d, svg.firstChild);
  svg.insertBefore(t, svg.firstChild);
  return serialize(svg);
}

/**
 * How a page shows these charts: across its column, and on a phone with text at PHONE_FONT and
 * thicker marks, which the margins and insets above leave room for. The site's pages and the
 * iframe page both use it.
 */
export const CHART_CSS = `svg.chart-svg{display:block;width:100%;height:auto;max-width:none}
ul.chart-legend{list-style:none;display:flex;flex-wrap:wrap;gap:.1rem 1rem;padding:0;margin:.3rem 0}
ul.chart-legend li{display:flex;align-items:baseline;gap:.35em;min-width:0}
ul.chart-legend .swatch{flex:none;width:.7em;height:.7em;border-radius:50%}
@media (max-width:600px){svg.chart-svg{font-size:${PHONE_FONT}px}
svg.chart-svg [aria-label=line] path{stroke-width:3}
svg.chart-svg [aria-label=dot] circle{r:7}
svg.chart-svg [aria-label=rule] line{stroke-width:6}}`;

/** Each series with the colour renderSvg gave it. */
export function legend(series: readonly string[]): LegendEntry[] {
  return series.map((name, i) => ({ name, color: PALETTE[i % PALETTE.length]! }));
}

/**
 * XML serialisation, by hand: linkedom's outerHTML leaves "<" and "&" raw in attribute values, which
 * HTML tolerates but an .svg file (XML) does not, and a submitter's CPU model reaches aria-description.
 * Everything of ours is elements, attributes and text, so this is short.
 */
const GEOMETRY = new Set([
  'd',
  'transform',
  'points',
  'x',
  'y',
  'x1',
  'x2',
  'y1',
  'y2',
  'cx',
  'cy',
  'width',
  'height',
]);

export function serialize(node: Node): string {
  const parts: string[] = [];
  serializeInto(node, parts);
  return parts.join('');
}

// Every chart of a 10,000-result build passes through here (about 60,000 of them): one array of
// parts, no intermediate strings per element, and values that need no escaping left as they are.
function serializeInto(node: Node, out: string[]): void {
  if (node.nodeType === 3) {
    out.push(escapeXml(node.textContent ?? '', false));
    return;
  }
  if (node.nodeType !== 1) return;
  const el = node as Element;
  // localName, not tagName: in an HTML document the DOM upper-cases tagName (<G>, <PATH>), which
  // HTML's parser forgives but an .svg file or resvg does not (they drew a blank chart). Plot makes
  // every element with createElementNS, so localName keeps SVG's own case (clipPath).
  const name = el.localName;
  out.push('<', name);
  for (const a of Array.from(el.attributes)) {
    // A tenth of a pixel is finer than any screen shows; Plot writes up to 15 digits. About a third of a chart's bytes.
    const v = GEOMETRY.has(a.name) && a.value.includes('.') ? a.value.replace(/(\.\d)\d+/g, '$1') : a.value;
    out.push(' ', a.name, '="', escapeXml(v, true), '"');
  }
  let child = el.firstChild;
  if (child === null) {
    out.push('/>');
    return;
  }
  out.push('>');
  for (; child !== null; child = child.nextSibling) serializeInto(child, out);
  out.push('</', name, '>');
}

/**
 * Characters XML 1.0 does not allow, even escaped: C0 controls but tab, LF and CR; U+FFFE, U+FFFF;
 * surrogates without their pair. One of them in a CPU model would make the .svg unreadable and fail
 * the PNG step of the build, so each becomes U+FFFD, the replacement character.
 */
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
  /[\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Anything escapeXml would change; most values (numbers, paths) have none. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
const NEEDS_ESCAPE = /[&<>"\0-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;

export function escapeXml(s: string, attribute: boolean): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  const r = s.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return attribute ? r.replace(/"/g, '&quot;') : r;
}

/**
 * Series colours, fixed so a legend can be drawn without asking Plot: Plot's own legend for
 * categories is HTML, which would make the chart a <figure> instead of one standalone <svg>.
 * Tableau 10, distinguishable for the common colour-vision deficiencies in its first five.
 */
export const PALETTE = [
  '#4e79a7',
  '#f28e2c',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc949',
  '#af7aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ab',
];

/** "1.2M", "350k", "950": ops/s for an axis or a table. */
export function formatOps(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 1 : 2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e5 ? 0 : 1)}k`;
  return n.toFixed(0);
}

/** Where a standalone chart file says its numbers come from. */
export interface ChartSource {
  /** One line: which result, suite, machine. */
  text: string;
  /** The page the numbers are on, in full: a link in the SVG, written out so a PNG shows it too. */
  url: string;
  /** "as of 2025-03-04" for a frozen chart, "live, drawn 2026-11-24" for one that follows new results. */
  asOf: string;
}

/** An average character at font size 1, for DejaVu Sans (the PNG's font) and system fonts alike: a little wide. */
const CHAR_EM = 0.62;
/** Characters per source line at 10px: what fills a 640px chart less its margins. */
const SOURCE_LINE_CHARS = 100;

/**
 * The chart as a file of its own (the .svg download and the PNG drawn from it): the title above and
 * the source, its date and its address below are part of the image, so a copy pasted into a blog
 * still says where its numbers come from and when. Opened directly, the source lines are a link.
 */
export function standaloneSvg(chart: Chart, source: ChartSource): string {
  const m = /viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(chart.svg);
  const w = Number(m?.[1] ?? CHART_WIDTH);
  const h = Number(m?.[2] ?? CHART_HEIGHT);
  const lines = wrap(`Source: redis-benchdb, ${source.text}`, SOURCE_LINE_CHARS, 2);
  const key = legendBand(chart.series, w, 28);
  const top = 28 + key.height;
  const bottom = top + h;
  const text = lines
    .map((l, i) => `<text x="8" y="${bottom + 16 + i * 14}">${escapeXml(l, false)}</text>`)
    .join('');
  // The date and the address on one line, smaller when a long address would run past the edge:
  // a result's URL holds its 64-digit id, and clipping it would leave a reader a link that fails.
  const last = `${source.asOf} · ${source.url}`;
  const size = Math.max(7, Math.min(10, Math.floor(((w - 16) / (CHAR_EM * last.length)) * 10) / 10));
  const urlY = bottom + 16 + lines.length * 14;
  const url = `<text x="8" y="${urlY}"${size < 10 ? ` font-size="${size}"` : ''}>${escapeXml(source.asOf, false)} · <tspan fill="#0b57d0">${escapeXml(source.url, false)}</tspan></text>`;
  const height = urlY + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${height}" viewBox="0 0 ${w} ${height}" font-family="system-ui, sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
<text x="8" y="20" font-size="14" font-weight="bold" fill="#111">${escapeXml(clip(chart.title, 88), false)}</text>
${key.svg}<g transform="translate(0,${top})">${chart.svg}</g>
<a href="${escapeXml(source.url, true)}"><g font-size="10" fill="#555">${text}${url}</g></a>
</svg>`;
}

/**
 * The legend of a standalone file, as rows of swatches and names under its title: a file has no
 * page around it to draw one.
 */
function legendBand(
  series: readonly LegendEntry[],
  width: number,
  top: number,
): { svg: string; height: number } {
  if (series.length === 0) return { svg: '', height: 0 };
  const row = 16;
  let x = 8;
  let y = top + 10;
  const items: string[] = [];
  for (const s of series) {
    const name = clip(s.name, 48);
    const w = 18 + Math.ceil(name.length * CHAR_EM * CHART_FONT) + 14;
    if (x > 8 && x + w > width - 8) {
      x = 8;
      y += row;
    }
    items.push(
      `<circle cx="${x + 5}" cy="${y - 4}" r="5" fill="${escapeXml(s.color, true)}"/><text x="${x + 14}" y="${y}">${escapeXml(name, false)}</text>`,
    );
    x += w;
  }
  return {
    svg: `<g class="legend" font-size="${CHART_FONT}" fill="#111">${items.join('')}</g>\n`,
    height: y - top + 8,
  };
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Words into at most `max` lines of about `width` characters; the last line is clipped with "…". */
function wrap(s: string, width: number, max: number): string[] {
  const lines: string[] = [];
  let rest = s.trim();
  while (rest && lines.length < max - 1 && rest.length > width) {
    const cut = rest.lastIndexOf(' ', width);
    const at = cut > width / 2 ? cut : width;
    lines.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest) lines.push(clip(rest, width));
  return lines;
}
