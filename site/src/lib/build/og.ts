import { escapeXml } from '../charts/xml.js';

const esc = (s: string) => escapeXml(s, false);

/**
 * An Open Graph card (1200×630) as SVG text; the build draws it to PNG. Text only, from the result,
 * escaped: a link preview says what the page's numbers are and where they come from. Escaped as XML,
 * which also drops characters XML forbids: resvg refuses a file with one, and the build with it.
 */
export function ogSvg(o: { kicker: string; title: string; lines: string[]; footer: string }): string {
  const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  const lines = o.lines
    .slice(0, 6)
    .map((l, i) => `<text x="60" y="${300 + i * 48}" font-size="34">${esc(clip(l, 60))}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630" viewBox="0 0 1200 630" font-family="DejaVu Sans, sans-serif">
<rect width="1200" height="630" fill="#ffffff"/><rect width="1200" height="12" fill="#a51f17"/>
<text x="60" y="110" font-size="30" fill="#555">${esc(clip(o.kicker, 70))}</text>
<text x="60" y="190" font-size="52" font-weight="bold" fill="#111">${esc(clip(o.title, 40))}</text>
<g fill="#111">${lines}</g>
<text x="60" y="590" font-size="24" fill="#555">${esc(clip(o.footer, 90))}</text>
</svg>`;
}
