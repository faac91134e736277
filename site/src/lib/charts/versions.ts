import * as Plot from '@observablehq/plot';
import { logScale } from './axes.js';
import { dotRowsSvg } from './cells.js';
import { type Chart, chartOf } from './render.js';

/** One version's throughput in one cell, relative to the reference version's in the same cell. */
export interface RatioPoint {
  cell: string;
  series: string;
  ratio: number;
  /** Bounds from the two 95% intervals: this low over that high, this high over that low. */
  low: number | null;
  high: number | null;
  opsPerSec: number;
}

export interface VersionsChartOptions {
  id: string;
  title: string;
  source: string;
  /** The version every ratio is to: the line at 1×. */
  reference: string;
}

/**
 * Every cell of the standard suite, a row each, with a dot per server version at its throughput
 * relative to the reference version (the line at 1×), on a log axis where 2× and 0.5× are equally
 * far from it. The faint bar is the ratio's range that the two runs' intervals allow.
 */
export function versionsChart(points: readonly RatioPoint[], o: VersionsChartOptions): Chart {
  const series = [...new Set(points.map((p) => p.series))];
  const values = points.flatMap((p) => [p.ratio, p.low ?? p.ratio, p.high ?? p.ratio]);
  const lo = Math.min(1, ...values) / 1.05;
  const hi = Math.max(1, ...values) * 1.05;
  const alt = `Dot chart of each standard cell's throughput relative to ${o.reference}, log scale, for ${series.join(
    ', ',
  )}; ${o.source}. ${points.map((p) => `${p.cell}, ${p.series}: ${times(p.ratio)}`).join('; ')}.`;
  const words = { id: o.id, title: o.title, alt, series };
  const svgs = dotRowsSvg(
    points.map((p) => ({ cell: p.cell, series: p.series, x: p.ratio, low: p.low, high: p.high })),
    {
      ...logScale(ratioTicks(lo, hi), times, [lo, hi]),
      label: `ops/s relative to ${o.reference} (log scale)`,
    },
    [Plot.ruleX([1], { stroke: 'currentColor', strokeOpacity: 0.6 })],
    words,
  );
  return chartOf(words, svgs, {
    columns: ['cell', 'version', `ratio to ${o.reference}`, 'range low', 'range high', 'ops/s'],
    rows: points.map((p) => [p.cell, p.series, r2(p.ratio), r2(p.low), r2(p.high), Math.round(p.opsPerSec)]),
  });
}

const r2 = (n: number | null) => (n === null ? null : Math.round(n * 100) / 100);

/** "1.25×", "0.8×". */
export function times(r: number): string {
  return `${Number(r.toPrecision(r < 1 ? 2 : 3))}×`;
}

/** Round ratios, most telling first: at most seven of those inside the range, in order. */
const RATIO_TICKS = [1, 0.5, 2, 0.8, 1.25, 0.25, 4, 0.67, 1.5, 0.9, 1.1, 0.1, 10, 0.2, 5, 0.33, 3];

export function ratioTicks(lo: number, hi: number, most = 7): number[] {
  return RATIO_TICKS.filter((t) => t >= lo && t <= hi)
    .slice(0, most)
    .sort((a, b) => a - b);
}
