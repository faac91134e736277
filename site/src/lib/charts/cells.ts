import * as Plot from '@observablehq/plot';
import { type Chart, formatOps, renderSvg } from './render.js';

/** One bar: a cell's median throughput in one result, with the trials' interval. */
export interface CellBar {
  cell: string;
  series: string;
  opsPerSec: number;
  ci95Low: number | null;
  ci95High: number | null;
}

export interface CellsChartOptions {
  id: string;
  title: string;
  source: string;
}

/**
 * Throughput by cell, a dot per series with its 95% interval: the compare and group view, where
 * the same cells of several results sit side by side. Dots, not bars, so several series stay
 * readable on one row.
 */
export function cellsChart(bars: readonly CellBar[], o: CellsChartOptions): Chart {
  const series = [...new Set(bars.map((b) => b.series))];
  const cells = [...new Set(bars.map((b) => b.cell))];
  const alt = `Dot chart of operations per second by cell for ${series.join(' and ')}; ${o.source}. ${bars
    .map((b) => `${b.cell}, ${b.series}: ${formatOps(b.opsPerSec)} ops/s`)
    .join('; ')}.`;
  const withCi = bars.filter((b) => b.ci95Low !== null && b.ci95High !== null);
  const svg = renderSvg(
    {
      height: Math.max(160, 40 + cells.length * 22),
      marginLeft: 170,
      marginRight: 24,
      x: { label: 'ops/s (median of trials)', grid: true, zero: true, tickFormat: '~s' },
      y: {
        label: null,
        domain: cells,
        tickFormat: (s: string) => (s.length > 26 ? `${s.slice(0, 25)}…` : s),
      },
      marks: [
        Plot.ruleY(withCi, {
          y: 'cell',
          x1: 'ci95Low',
          x2: 'ci95High',
          stroke: 'series',
          strokeWidth: 3,
          strokeOpacity: 0.4,
        }),
        Plot.dot(bars, { y: 'cell', x: 'opsPerSec', fill: 'series', r: 3.5 }),
      ],
    },
    o.title,
    alt,
    series,
  );
  return {
    id: o.id,
    title: o.title,
    alt,
    svg,
    table: {
      columns: ['cell', 'series', 'ops/s', '95% CI low', '95% CI high'],
      rows: bars.map((b) => [b.cell, b.series, Math.round(b.opsPerSec), r(b.ci95Low), r(b.ci95High)]),
    },
  };
}

const r = (n: number | null) => (n === null ? null : Math.round(n));
