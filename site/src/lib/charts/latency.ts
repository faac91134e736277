import * as Plot from '@observablehq/plot';
import { decodeHistogram, type Histogram, HistogramError } from '@redis-benchdb/result';
import type { CellView } from '../model/model.js';
import { latencyTick, latencyUnit, logScale, logTicks } from './axes.js';
import { type Chart, DOT_R, drawChart, INSET, marginFor, marginRightFor } from './render.js';

/** Percentiles plotted: the "nines" that latency SLOs are written in. */
export const PERCENTILES = [50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999] as const;

export interface LatencyPoint {
  series: string;
  percentile: number;
  latencyUs: number;
}

/**
 * A stored histogram, or null when there is none or it cannot be decoded: results stored before
 * ingest bounded histograms may hold one that claims 2^33 buckets, and the page then plots the
 * summary the cell states instead of failing the build.
 */
function decodeStored(encoded: string | null): Histogram | null {
  if (!encoded) return null;
  try {
    return decodeHistogram(encoded);
  } catch (e) {
    if (e instanceof HistogramError) return null;
    throw e;
  }
}

/**
 * A cell's latency distribution, read from its stored HDR histogram (so every percentile, not only
 * the ones the runner printed). A percentile past the histogram's count of samples would only
 * repeat the maximum, so it is left out.
 */
export function latencyPoints(cell: CellView, series = cell.label): LatencyPoint[] {
  const h = decodeStored(cell.histogram);
  if (h) {
    const n = h.totalCount;
    const pts = PERCENTILES.filter((p) => n * (1 - p / 100) >= 1 || p === 50).map((p) => ({
      series,
      percentile: p,
      latencyUs: h.getValueAtPercentile(p),
    }));
    if (typeof (h as { destroy?: () => void }).destroy === 'function')
      (h as { destroy: () => void }).destroy();
    return pts;
  }
  const l = cell.latencyUs;
  if (!l) return [];
  const pts: LatencyPoint[] = [];
  if (l.p50Us !== null) pts.push({ series, percentile: 50, latencyUs: l.p50Us });
  if (l.p99Us !== null) pts.push({ series, percentile: 99, latencyUs: l.p99Us });
  if (l.p999Us !== null) pts.push({ series, percentile: 99.9, latencyUs: l.p999Us });
  return pts;
}

/** The x position of a percentile: one step per "nine", so the tail gets the room it deserves. */
export function nines(p: number): number {
  return -Math.log10(1 - p / 100);
}

/** A log axis of latency in `unit`, on the given ticks (from logTicks): the latency charts share it. */
export function latencyAxis(unit: string, yTicks: readonly number[]): Plot.ScaleOptions {
  return {
    ...logScale(yTicks, latencyTick),
    label: `Latency (${unit}, log scale)`,
    grid: true,
    inset: INSET,
  };
}

/** A tick of the percentile axis: "99.9%". */
const percent = (x: number) => `${+(100 - 100 * 10 ** -x).toPrecision(6)}%`;

export interface LatencyChartOptions {
  title: string;
  source: string;
  id?: string;
}

export function latencyChart(points: readonly LatencyPoint[], o: LatencyChartOptions): Chart {
  const series = [...new Set(points.map((p) => p.series))];
  // Milliseconds once the tail passes one: "42 ms" reads where "42,000 µs" did not.
  const lat = points.map((p) => p.latencyUs);
  const { unit, div } = latencyUnit(Math.max(...lat));
  const rows = points.map((p) => ({ ...p, x: nines(p.percentile), y: p.latencyUs / div }));
  const yTicks = logTicks(Math.max(Math.min(...lat), 1) / div, Math.max(...lat) / div);
  const xMax = Math.max(...rows.map((r) => r.x));
  const xTicks = [50, 90, 99, 99.9, 99.99, 99.999].map(nines).filter((x) => x <= xMax + 1e-9);
  const alt = `Latency by percentile, ${unit === 'ms' ? 'milliseconds' : 'microseconds'} on a log scale, for ${series.join(', ')}; ${o.source}. ${points
    .map((p) => `${p.series} p${p.percentile}: ${p.latencyUs} µs`)
    .join('; ')}.`;
  return drawChart(
    { id: o.id ?? 'latency', title: o.title, alt, series },
    (s) => ({
      marginLeft: marginFor(yTicks.map(latencyTick), s),
      marginRight: marginRightFor(percent(xTicks.at(-1)!), s),
      x: {
        label: 'Percentile',
        domain: [nines(50), Math.max(xMax, nines(99))],
        ticks: xTicks,
        tickFormat: percent,
        inset: INSET,
      },
      y: latencyAxis(unit, yTicks),
      marks: [
        Plot.lineY(rows, { x: 'x', y: 'y', stroke: 'series', strokeWidth: 1.5 }),
        Plot.dot(rows, { x: 'x', y: 'y', fill: 'series', symbol: 'series', r: DOT_R }),
      ],
    }),
    {
      columns: ['series', 'percentile', 'latency µs'],
      rows: points.map((p) => [p.series, p.percentile, p.latencyUs]),
    },
  );
}
