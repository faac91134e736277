import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';

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
  /** The numbers behind the chart, shown beside it. */
  table: { columns: string[]; rows: (string | number | null)[][] };
}

export const CHART_WIDTH = 640;
export const CHART_HEIGHT = 360;

/**
 * Plot options to SVG text with a <title> and <desc>. Plot escapes text it sets (labels, tips) and
 * linkedom serialises text nodes escaped, so metadata such as a CPU model cannot become markup; the
 * site's hostile-metadata test checks this in a browser.
 */
export function renderSvg(
  options: Plot.PlotOptions,
  title: string,
  alt: string,
  series: readonly string[] = [],
): string {
  const legend = series.length > 0;
  const svg = Plot.plot({
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    ...options,
    ...(legend ? { marginTop: 22 + 16 * Math.ceil(series.length / 2) } : {}),
    color: { domain: series, range: PALETTE },
    document,
    ariaLabel: title,
    ariaDescription: alt,
  } as Plot.PlotOptions) as unknown as Element;
  if (svg.tagName.toLowerCase() !== 'svg') throw new Error(`chart "${title}" did not render to one <svg>`);
  svg.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  svg.setAttribute('role', 'img');
  const t = document.createElementNS('http://www.w3.org/2000/svg', 'title');
  t.textContent = title;
  const d = document.createElementNS('http://www.w3.org/2000/svg', 'desc');
  d.textContent = alt;
  svg.insertBefore(d, svg.firstChild);
  svg.insertBefore(t, svg.firstChild);
  if (legend) svg.appendChild(legendGroup(series));
  return serialize(svg);
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
  if (node.nodeType === 3) return escapeXml(node.textContent ?? '', false);
  if (node.nodeType !== 1) return '';
  const el = node as Element;
  // localName, not tagName: in an HTML document the DOM upper-cases tagName (<G>, <PATH>), which
  // HTML's parser forgives but an .svg file or resvg does not (they drew a blank chart). Plot makes
  // every element with createElementNS, so localName keeps SVG's own case (clipPath).
  const name = el.localName;
  let out = `<${name}`;
  for (const a of Array.from(el.attributes)) {
    // A tenth of a pixel is finer than any screen shows; Plot writes up to 15 digits. About a third of a chart's bytes.
    const v = GEOMETRY.has(a.name) ? a.value.replace(/(\.\d)\d+/g, '$1') : a.value;
    out += ` ${a.name}="${escapeXml(v, true)}"`;
  }
  const kids = Array.from(el.childNodes);
  if (kids.length === 0) return `${out}/>`;
  return `${out}>${kids.map(serialize).join('')}</${name}>`;
}

/**
 * Characters XML 1.0 does not allow, even escaped: C0 controls but tab, LF and CR; U+FFFE, U+FFFF;
 * surrogates without their pair. One of them in a CPU model would make the .svg unreadable and fail
 * the PNG step of the build, so each becomes U+FFFD, the replacement character.
 */
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
  /[\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(s: string, attribute: boolean): string {
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

function legendGroup(series: readonly string[]): Element {
  const ns = 'http://www.w3.org/2000/svg';
  const g = document.createElementNS(ns, 'g');
  g.setAttribute('class', 'legend');
  g.setAttribute('text-anchor', 'start');
  // Right of the y-axis label, which Plot draws in the top-left corner.
  const left = 200;
  const colWidth = (CHART_WIDTH - left) / 2;
  series.forEach((name, i) => {
    const x = left + (i % 2) * colWidth;
    const y = 12 + Math.floor(i / 2) * 16;
    const dot = document.createElementNS(ns, 'circle');
    dot.setAttribute('cx', String(x + 5));
    dot.setAttribute('cy', String(y - 3));
    dot.setAttribute('r', '5');
    dot.setAttribute('fill', PALETTE[i % PALETTE.length]!);
    const text = document.createElementNS(ns, 'text');
    text.setAttribute('x', String(x + 14));
    text.setAttribute('y', String(y + 1));
    text.textContent = name.length > 36 ? `${name.slice(0, 35)}…` : name;
    g.append(dot, text);
  });
  return g;
}

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
  const bottom = 28 + h;
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
<text x="8" y="20" font-size="14" font-weight="bold" fill="#111">${escapeXml(clip(chart.title, 72), false)}</text>
<g transform="translate(0,28)">${chart.svg}</g>
<a href="${escapeXml(source.url, true)}"><g font-size="10" fill="#555">${text}${url}</g></a>
</svg>`;
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
