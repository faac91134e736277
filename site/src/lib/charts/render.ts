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
  const name = el.tagName.toLowerCase() === 'svg' ? 'svg' : el.tagName;
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

function escapeXml(s: string, attribute: boolean): string {
  const r = s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
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

/**
 * The chart as a file of its own (the .svg download and the PNG drawn from it): the title above and
 * the source line below are part of the image, so a copy pasted into a blog still says where its
 * numbers come from.
 */
export function standaloneSvg(chart: Chart, source: string): string {
  const m = /viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(chart.svg);
  const w = Number(m?.[1] ?? CHART_WIDTH);
  const h = Number(m?.[2] ?? CHART_HEIGHT);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h + 56}" viewBox="0 0 ${w} ${h + 56}" font-family="system-ui, sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
<text x="8" y="20" font-size="14" font-weight="bold" fill="#111">${escapeXml(chart.title, false)}</text>
<g transform="translate(0,28)">${chart.svg}</g>
<text x="8" y="${h + 48}" font-size="10" fill="#555">${escapeXml(`Source: redis-benchdb, ${source}`.slice(0, 160), false)}</text>
</svg>`;
}
