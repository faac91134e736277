import * as Plot from '@observablehq/plot';
import { bytes, count } from '../format.js';
import { SWEEP_AXES, type SweepAxis, type SweepPoint } from '../sweeps.js';
import { logScale } from './axes.js';
import { type Chart, formatOps, INSET, legend, marginRightFor, opsAxis, renderSvg } from './render.js';

export interface SweepChartOptions {
  axis: SweepAxis;
  /** Shown above the chart and read by screen readers. */
  title: string;
  /** Where the numbers come from: a result, a group. Goes into the alt text. */
  source: string;
}

/** Throughput against one swept axis, a line per series, with the trials' 95% interval as a rule. */
export function sweepChart(points: readonly SweepPoint[], o: SweepChartOptions): Chart {
  const axis = SWEEP_AXES[o.axis];
  const series = [...new Set(points.map((p) => p.series))];
  const alt = `Line chart of operations per second against ${axis.short}, log scale, for ${series.join(', ')}; ${o.source}. ${points
    .map((p) => `${p.series} at ${p.x}: ${formatOps(p.opsPerSec)} ops/s`)
    .join('; ')}.`;
  const withCi = points.filter((p) => p.ci95Low !== null && p.ci95High !== null);
  // A tick at each value the sweep ran (1, 4, 16, 64), not a log axis's own (1, 2, 3 ... 10),
  // which label depths never run and skip the ones that were. With many values, every other one,
  // counted from the largest so that the end of the axis is always labelled.
  const xs = [...new Set(points.map((p) => p.x))].sort((a, b) => a - b);
  const xTicks = sweepTicks(xs);
  const xLabel = o.axis === 'value-size' ? bytes : count;
  const ops = opsAxis(Math.max(...points.map((p) => Math.max(p.opsPerSec, p.ci95High ?? 0))));
  const svg = renderSvg(
    {
      marginLeft: ops.marginLeft,
      marginRight: marginRightFor(xLabel(xTicks.at(-1)!)),
      x: { ...logScale(xTicks, xLabel, [xs[0]!, xs.at(-1)!]), label: axis.label, inset: INSET },
      y: ops.y,
      marks: [
        Plot.ruleX(withCi, {
          x: 'x',
          y1: 'ci95Low',
          y2: 'ci95High',
          stroke: 'series',
          strokeWidth: 3,
          strokeOpacity: 0.4,
        }),
        Plot.lineY(points, { x: 'x', y: 'opsPerSec', stroke: 'series' }),
        Plot.dot(points, { x: 'x', y: 'opsPerSec', fill: 'series', r: 3 }),
      ],
    },
    o.title,
    alt,
    series,
  );
  return {
    id: o.axis,
    title: o.title,
    alt,
    svg,
    series: legend(series),
    table: {
      columns: ['series', axis.short, 'ops/s', '95% CI low', '95% CI high'],
      rows: points.map((p) => [p.series, p.x, round(p.opsPerSec), round(p.ci95Low), round(p.ci95High)]),
    },
  };
}

/** The x ticks of a sweep: each value it ran, or every other one from the largest when over 8. */
export function sweepTicks(values: readonly number[]): number[] {
  const xs = [...new Set(values)].sort((a, b) => a - b);
  if (xs.length <= 8) return xs;
  const last = (xs.length - 1) % 2;
  return xs.filter((_, i) => i % 2 === last);
}

export function round(n: number | null): number | null {
  return n === null ? null : Math.round(n);
}
