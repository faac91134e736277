import * as Plot from '@observablehq/plot';
import { type Chart, formatOps, renderSvg } from './render.js';

export interface TimePoint {
  series: string;
  /** ISO date-time of the run (or of receipt, for a result that does not say). */
  at: string;
  opsPerSec: number;
  resultId: string;
}

export interface OverTimeChartOptions {
  id: string;
  title: string;
  source: string;
}

/** One workload's throughput across results over time: a machine's or a version's history. */
export function overTimeChart(points: readonly TimePoint[], o: OverTimeChartOptions): Chart {
  const series = [...new Set(points.map((p) => p.series))];
  const rows = points.map((p) => ({ ...p, date: new Date(p.at) }));
  const times = rows.map((r) => r.date.getTime());
  // All on one day (a single result): a day either side, or Plot labels the lone tick with an ISO time stamp.
  const day = 86_400_000;
  const oneDay = Math.max(...times) - Math.min(...times) < day;
  const alt = `Dot chart of operations per second over time for ${series.join(', ')}; ${o.source}; ${points.length} results, from ${formatOps(
    Math.min(...points.map((p) => p.opsPerSec)),
  )} to ${formatOps(Math.max(...points.map((p) => p.opsPerSec)))} ops/s.`;
  const svg = renderSvg(
    {
      marginLeft: 56,
      marginRight: 24,
      x: {
        type: 'utc',
        label: 'Run date (UTC)',
        ...(oneDay
          ? { domain: [new Date(Math.min(...times) - day), new Date(Math.max(...times) + day)] }
          : {}),
      },
      y: { label: 'ops/s (median of trials)', grid: true, zero: true, tickFormat: '~s' },
      marks: [Plot.dot(rows, { x: 'date', y: 'opsPerSec', stroke: 'series', r: 3 })],
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
      columns: ['series', 'run date', 'ops/s', 'result'],
      rows: points.map((p) => [p.series, p.at, Math.round(p.opsPerSec), p.resultId.slice(0, 12)]),
    },
  };
}
