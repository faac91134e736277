import { CHAR_EM } from './format.js';
import type { LegendEntry } from './palette.js';
import type { Chart } from './render.js';
import { escapeXml } from './xml.js';

/** Where a standalone chart file says its numbers come from. */
export interface ChartSource {
  /** One line: which result, suite, machine. */
  text: string;
  /** The page the numbers are on, in full: a link in the SVG, written out so a PNG shows it too. */
  url: string;
  /** "as of 2025-03-04" for a frozen chart, "live, built on 2026-11-24" for one that follows new results. */
  asOf: string;
}

/** Text sizes of a standalone file, in its units (the narrow drawing's, about a CSS px each at 400 px). */
const TITLE = 14;
const KEY = 12;
const SOURCE = 11;
const PAD = 8;

/**
 * The chart as a file of its own (the .svg download and the PNG drawn from it): the title above and
 * the source, its date and its address below are part of the image, so a copy pasted into a blog
 * still says where its numbers come from and when. Opened directly, the source lines are a link.
 * It holds the narrow drawing: a blog's column is 400 to 700 px, where that one's text reads at 11
 * to 20 px, and at a phone's 366 px still at 10. Nothing is clipped: the title, the source and the
 * address wrap onto as many lines as they need (a cut-off address would be a link that fails).
 */
export function standaloneSvg(chart: Chart, source: ChartSource): string {
  const m = /viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(chart.narrow);
  if (!m) throw new Error(`chart "${chart.title}" has no viewBox in its narrow drawing`);
  const w = Number(m[1]);
  const h = Number(m[2]);
  const fits = (size: number) => Math.floor((w - 2 * PAD) / (CHAR_EM * size));
  // Bold glyphs run about a tenth wider than CHAR_EM allows for.
  const title = wrap(chart.title, Math.floor(fits(TITLE) / 1.1));
  const titleSvg = title
    .map((l, i) => `<text x="${PAD}" y="${18 + i * (TITLE + 4)}">${escapeXml(l, false)}</text>`)
    .join('');
  const keyTop = 18 + (title.length - 1) * (TITLE + 4) + 8;
  const key = legendBand(chart.series, w, keyTop);
  const top = keyTop + key.height;
  const bottom = top + h;
  const line = SOURCE + 4;
  const lines = wrap(`Source: redis-benchdb, ${source.text}`, fits(SOURCE));
  const text = lines
    .map((l, i) => `<text x="${PAD}" y="${bottom + 14 + i * line}">${escapeXml(l, false)}</text>`)
    .join('');
  // The date, then the address, broken by characters where it is longer than a line.
  const urlTop = bottom + 14 + lines.length * line;
  const url = [`${source.asOf} ·`, ...chunks(source.url, fits(SOURCE))];
  const urlSvg = url
    .map(
      (l, i) =>
        `<text x="${PAD}" y="${urlTop + i * line}">${i === 0 ? escapeXml(l, false) : `<tspan fill="#0b57d0">${escapeXml(l, false)}</tspan>`}</text>`,
    )
    .join('');
  const height = urlTop + (url.length - 1) * line + 8;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${height}" viewBox="0 0 ${w} ${height}" font-family="system-ui, sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
<g font-size="${TITLE}" font-weight="bold" fill="#111">${titleSvg}</g>
${key.svg}<g transform="translate(0,${top})">${chart.narrow}</g>
<a href="${escapeXml(source.url, true)}"><g font-size="${SOURCE}" fill="#444">${text}${urlSvg}</g></a>
</svg>`;
}

/**
 * The legend of a standalone file, as rows of marks and names under its title: a file has no page
 * around it to draw one. A name too long for a row wraps onto the next rather than being cut.
 */
function legendBand(
  series: readonly LegendEntry[],
  width: number,
  top: number,
): { svg: string; height: number } {
  if (series.length === 0) return { svg: '', height: 0 };
  const row = KEY + 5;
  const room = width - 2 * PAD - 16;
  let x = PAD;
  let y = top + KEY;
  const items: string[] = [];
  for (const s of series) {
    const lines = wrap(s.name, Math.floor(room / (CHAR_EM * KEY)));
    const w = 16 + Math.ceil(Math.max(...lines.map((l) => l.length)) * CHAR_EM * KEY) + 12;
    if (x > PAD && x + w > width - PAD) {
      x = PAD;
      y += row;
    }
    const label = lines
      .map((l, i) => `<text x="${x + 16}" y="${y + i * row}">${escapeXml(l, false)}</text>`)
      .join('');
    items.push(
      `<path transform="translate(${x + 6},${y - 4})" d="${s.mark}" fill="${escapeXml(s.color, true)}"/>${label}`,
    );
    x += w;
    if (lines.length > 1) {
      x = PAD;
      y += row * lines.length;
    }
  }
  return {
    svg: `<g class="legend" font-size="${KEY}" fill="#111">${items.join('')}</g>\n`,
    height: y - top + 10,
  };
}

/** Words into lines of at most `width` characters; a word longer than a line is broken. */
function wrap(s: string, width: number): string[] {
  const lines: string[] = [];
  let rest = s.trim();
  while (rest.length > width) {
    const cut = rest.lastIndexOf(' ', width);
    const at = cut > width / 3 ? cut : width;
    lines.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest) lines.push(rest);
  return lines;
}

/** An address in lines of `width` characters, broken after a "/" where one is near the end. */
function chunks(s: string, width: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (rest.length > width) {
    const slash = rest.lastIndexOf('/', width - 1);
    const at = slash > width / 2 ? slash + 1 : width;
    out.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  out.push(rest);
  return out;
}
