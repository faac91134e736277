import { pathOf, SYMBOLS } from './symbols.js';
import { escapeXml } from './xml.js';

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

export interface LegendEntry {
  name: string;
  color: string;
  /** The series' mark as SVG path data around 0,0, radius about 5: the swatch. */
  mark: string;
}

/** The colour and symbol scales renderSvg gives Plot: the i-th series drawn in PALETTE[i] with SYMBOLS[i]. */
export function seriesScales(series: readonly string[]) {
  return { color: { domain: series, range: PALETTE }, symbol: { domain: series, range: SYMBOLS } };
}

/** Each series with the colour and mark seriesScales gave it: a legend that matches the drawing. */
export function legend(series: readonly string[]): LegendEntry[] {
  return series.map((name, i) => ({
    name,
    color: PALETTE[i % PALETTE.length]!,
    mark: pathOf(SYMBOLS[i % SYMBOLS.length]!, 4.5),
  }));
}

/** A legend entry's swatch, as inline SVG: its mark in its colour. */
export function swatchSvg(e: LegendEntry): string {
  return `<svg class="swatch" viewBox="-6 -6 12 12" aria-hidden="true"><path d="${e.mark}" fill="${escapeXml(e.color, true)}"/></svg>`;
}

/**
 * How a page lays out a legend drawn in HTML (a list of swatches and names): the entries wrap onto
 * as many lines as the column needs, each swatch kept beside its name. Part of CHART_CSS.
 */
export const LEGEND_CSS = `ul.chart-legend{list-style:none;display:flex;flex-wrap:wrap;gap:.1rem 1rem;padding:0;margin:.3rem 0}
ul.chart-legend li{display:flex;align-items:center;gap:.35em;min-width:0}
ul.chart-legend .swatch{flex:none;width:.9em;height:.9em}`;
