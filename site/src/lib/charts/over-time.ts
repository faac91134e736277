import * as Plot from '@observablehq/plot';
import { humanDate, humanDateTime, timeTicks } from './axes.js';
import { formatOps } from './format.js';
import { type Chart, DOT_R, drawChart, INSET, marginRightFor, NARROW, opsAxis } from './render.js';

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
  // Ticks on whole days or months with human labels ("4 Mar 2025"): Plot's own, for a single
  // result, labelled the lone tick with an ISO time stamp.
  const times = rows.map((r) => r.date.getTime());
  const max = Math.max(...points.map((p) => p.opsPerSec));
  const alt = `Dot chart of operations per second over time for ${series.join(', ')}; ${o.source}; ${points.length} results from ${humanDate(
    new Date(Math.min(...times)),
  )} to ${humanDate(new Date(Math.max(...times)))}, from ${formatOps(Math.min(...points.map((p) => p.opsPerSec)))} to ${formatOps(
    Math.max(...points.map((p) => p.opsPerSec)),
  )} ops/s.`;
  return drawChart(
    { id: o.id, title: o.title, alt, series },
    (s) => {
      const ops = opsAxis(max, s);
      // Fewer ticks on the narrow drawing: "4 Mar 2025" six times does not fit 380 units.
      const { ticks, monthly } = timeTicks(times, s === NARROW ? 4 : 6);
      return {
        marginLeft: ops.marginLeft,
        marginRight: marginRightFor(humanDate(ticks.at(-1)!, monthly ? 'month' : 'day'), s),
        x: {
          type: 'utc',
          label: 'Run date (UTC)',
          domain: [ticks[0]!, ticks.at(-1)!],
          ticks,
          tickFormat: (d: Date) => humanDate(d, monthly ? 'month' : 'day'),
          inset: INSET,
        },
        y: ops.y,
        marks: [Plot.dot(rows, { x: 'date', y: 'opsPerSec', stroke: 'series', symbol: 'series', r: DOT_R })],
      };
    },
    {
      columns: ['series', 'run date', 'ops/s', 'result'],
      rows: points.map((p) => [
        p.series,
        humanDateTime(p.at),
        Math.round(p.opsPerSec),
        p.resultId.slice(0, 12),
      ]),
    },
  );
}
