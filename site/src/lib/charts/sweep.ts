import * as Plot from '@observablehq/plot';
import { bytes, count } from '../model/format.js';
import { SWEEP_AXES, type SweepAxis, type SweepPoint } from '../model/sweeps.js';
import { logScale } from './axes.js';
import { CHAR_EM, formatOps } from './format.js';
import {
  type Chart,
  type ChartSize,
  DOT_R,
  drawChart,
  INSET,
  marginRightFor,
  NARROW,
  opsAxis,
} from './render.js';

export interface SweepChartOptions {
  axis: SweepAxis;
  /** Shown above the chart and read by screen readers. */
  title: string;
  /** Where the numbers come from: a result, a group. Goes into the alt text. */
  source: string;
  /** The chart's id (default: the axis), where one page draws a sweep more than once. */
  id?: string;
}

/** The most series one chart draws in one panel: beyond this, colours and marks repeat and no one can follow a line. */
export const MOST_SERIES = 8;

/**
 * Throughput against one swept axis, a line per series, with the trials' spread as a rule (a 95%
 * interval of the median from 6 trials, else their range: SweepPoint.spread).
 * A group's sweep names its series "member · command": with more than MOST_SERIES of them it is
 * drawn as a panel per command, a line per member in each, so a member keeps its colour and mark
 * from panel to panel.
 */
export function sweepChart(points: readonly SweepPoint[], o: SweepChartOptions): Chart {
  const axis = SWEEP_AXES[o.axis];
  const all = [...new Set(points.map((p) => p.series))];
  const split = all.length > MOST_SERIES && all.every((s) => s.includes(' · '));
  const rows = points.map((p) => {
    const at = p.series.lastIndexOf(' · ');
    return split
      ? { ...p, key: p.series.slice(0, at), panel: p.series.slice(at + 3) }
      : { ...p, key: p.series, panel: null };
  });
  const series = [...new Set(rows.map((p) => p.key))];
  const panels = [...new Set(rows.map((p) => p.panel))];
  const alt = `Line chart of operations per second against ${axis.short}, log scale, for ${all.join(', ')}${split ? `, a panel for each of ${panels.join(', ')}` : ''}; ${o.source}. ${points
    .map((p) => `${p.series} at ${p.x}: ${formatOps(p.opsPerSec)} ops/s`)
    .join('; ')}.`;
  const withCi = rows.filter((p) => p.ci95Low !== null && p.ci95High !== null);
  // A tick at each value the sweep ran (1, 4, 16, 64), not a log axis's own (1, 2, 3 ... 10),
  // which label depths never run and skip the ones that were. With many values, every other one,
  // counted from the largest so that the end of the axis is always labelled.
  const xs = [...new Set(points.map((p) => p.x))].sort((a, b) => a - b);
  const xLabel = o.axis === 'value-size' ? bytes : count;
  const max = Math.max(...points.map((p) => Math.max(p.opsPerSec, p.ci95High ?? 0)));
  return drawChart(
    { id: o.id ?? o.axis, title: o.title, alt, series },
    (s) => {
      // Panels side by side on a wide drawing, one above the other on a narrow one.
      const side = s === NARROW ? 'fy' : 'fx';
      const fy = split ? { [side]: 'panel' } : {};
      const ops = opsAxis(max, s);
      const room = side === 'fx' && split ? { ...s, width: s.width / panels.length + 45 } : s;
      const xTicks = sweepTicks(xs, labelRoom(room, xs.map(xLabel)));
      return {
        height: split && side === 'fy' ? (s.height - 40) * panels.length : s.height,
        marginLeft: ops.marginLeft,
        marginRight: marginRightFor(xLabel(xTicks.at(-1)!), s),
        x: { ...logScale(xTicks, xLabel, [xs[0]!, xs.at(-1)!]), label: axis.label, inset: INSET },
        y: ops.y,
        // The panels are named inside their frames (below): Plot's own fy axis would sit in the right margin, cut.
        ...(split ? { [side]: { label: null, axis: null, padding: side === 'fx' ? 0.08 : 0.12 } } : {}),
        marks: [
          Plot.ruleX(withCi, {
            x: 'x',
            y1: 'ci95Low',
            y2: 'ci95High',
            stroke: 'key',
            strokeWidth: 3,
            strokeOpacity: 0.4,
            ...fy,
          }),
          Plot.lineY(rows, { x: 'x', y: 'opsPerSec', z: 'key', stroke: 'key', strokeWidth: 1.5, ...fy }),
          Plot.dot(rows, { x: 'x', y: 'opsPerSec', fill: 'key', symbol: 'key', r: DOT_R, ...fy }),
          ...(split
            ? [
                Plot.text(panels, {
                  [side]: (d: string | null) => d,
                  frameAnchor: 'top-left',
                  dx: 4,
                  dy: 2,
                  text: (d) => d,
                  fontWeight: 'bold',
                }),
              ]
            : []),
        ],
      };
    },
    {
      columns: ['series', axis.short, 'ops/s', 'spread low', 'spread high', 'spread'],
      rows: points.map((p) => [
        p.series,
        p.x,
        round(p.opsPerSec),
        round(p.ci95Low),
        round(p.ci95High),
        p.spread ?? null,
      ]),
    },
  );
}

/**
 * How many x tick labels fit side by side at a size, evenly spaced (a sweep's values are a
 * geometric series, even on its log axis) with half an em between them, across the plot's width
 * (the drawing's less about 90 units of margins).
 */
function labelRoom(s: ChartSize, labels: readonly string[]): number {
  const widest = Math.max(...labels.map((l) => l.length)) * CHAR_EM * s.font + s.font / 2;
  return Math.max(2, Math.floor((s.width - 90) / widest) + 1);
}

/**
 * The x ticks of a sweep: each value it ran, or, when more than `most` would not fit, every k-th
 * one counted from the largest, so the end of the axis is always labelled.
 */
export function sweepTicks(values: readonly number[], most = 8): number[] {
  const xs = [...new Set(values)].sort((a, b) => a - b);
  if (xs.length <= most) return xs;
  const k = Math.ceil(xs.length / most);
  const last = (xs.length - 1) % k;
  return xs.filter((_, i) => i % k === last);
}

export function round(n: number | null): number | null {
  return n === null ? null : Math.round(n);
}
