import * as Plot from '@observablehq/plot';
import type { SloView } from '../model/slo.js';
import { latencyTick, latencyUnit, linearTicks, logTicks, opsTick } from './axes.js';
import { latencyAxis } from './latency.js';
import { type Chart, DOT_R, drawChart, INSET, marginFor, marginRightFor } from './render.js';

/** One latency of one step of one search: a point of the hockey stick. */
export interface SloPoint {
  /** "p99" or "p50". */
  series: string;
  /** Which search of the cell (0 for the first): each search is its own line. */
  search: number;
  offeredOpsPerSec: number;
  latencyUs: number;
  pass: boolean;
}

/** Every step of every search, the objective's percentile and the median, in order of offered rate. */
export function sloPoints(v: SloView): SloPoint[] {
  const objective = `p${v.percentile}`;
  return v.searches.flatMap((s, search) =>
    [...s.steps]
      .sort((a, b) => a.offeredOpsPerSec - b.offeredOpsPerSec)
      .flatMap((st) => [
        {
          series: objective,
          search,
          offeredOpsPerSec: st.offeredOpsPerSec,
          latencyUs: st.objectiveUs,
          pass: st.pass,
        },
        { series: 'p50', search, offeredOpsPerSec: st.offeredOpsPerSec, latencyUs: st.p50Us, pass: st.pass },
      ]),
  );
}

export interface SloChartOptions {
  id: string;
  title: string;
  source: string;
  /** The objective: a horizontal rule at this latency. */
  objectiveUs: number;
  objective: string;
  /** The answer (median of the searches), a vertical rule; null when there is none. */
  answerOpsPerSec: number | null;
}

/**
 * Latency against offered load, from a search's steps: flat while the server keeps up, then up
 * like a hockey stick once requests queue. Latency is timed from each request's intended send, so
 * the queue counts. The objective is a horizontal rule; the answer, where the search found one, a
 * vertical one. Failed steps are hollow.
 */
export function sloChart(points: readonly SloPoint[], o: SloChartOptions): Chart {
  const series = [...new Set(points.map((p) => p.series))];
  const lat = [...points.map((p) => Math.max(p.latencyUs, 1)), o.objectiveUs];
  const { unit, div } = latencyUnit(Math.max(...lat));
  const rows = points.map((p) => ({ ...p, y: Math.max(p.latencyUs, 1) / div, z: `${p.series} ${p.search}` }));
  const yTicks = logTicks(Math.min(...lat) / div, Math.max(...lat) / div);
  const xTicks = linearTicks(Math.max(...points.map((p) => p.offeredOpsPerSec)));
  const answer = o.answerOpsPerSec === null ? 'no answer' : `answer ${Math.round(o.answerOpsPerSec)} ops/s`;
  const alt = `Latency from the intended send against offered ops/s, ${unit === 'ms' ? 'milliseconds' : 'microseconds'} on a log scale, for ${series.join(' and ')}; objective ${o.objective}, ${answer}; ${o.source}. ${points
    .filter((p) => p.series !== 'p50')
    .map(
      (p) =>
        `${Math.round(p.offeredOpsPerSec)} ops/s: ${p.series} ${p.latencyUs} µs (${p.pass ? 'pass' : 'fail'})`,
    )
    .join('; ')}.`;
  return drawChart(
    { id: o.id, title: o.title, alt, series },
    (s) => ({
      marginLeft: marginFor(yTicks.map(latencyTick), s),
      marginRight: marginRightFor(opsTick(xTicks.at(-1)!), s),
      x: {
        label: 'Offered ops/s',
        domain: [0, xTicks.at(-1)!],
        ticks: xTicks,
        tickFormat: opsTick,
        inset: INSET,
      },
      y: latencyAxis(unit, yTicks),
      marks: [
        Plot.ruleY([o.objectiveUs / div], { stroke: '#b00020', strokeDasharray: '6,4' }),
        ...(o.answerOpsPerSec === null
          ? []
          : [Plot.ruleX([o.answerOpsPerSec], { stroke: '#555', strokeDasharray: '2,3' })]),
        Plot.lineY(rows, { x: 'offeredOpsPerSec', y: 'y', z: 'z', stroke: 'series' }),
        // Two marks, not a fill per dot: a constant "white" is a colour, whereas mixed in a channel
        // it would be read as one more series.
        Plot.dot(
          rows.filter((r) => r.pass),
          { x: 'offeredOpsPerSec', y: 'y', stroke: 'series', fill: 'series', symbol: 'series', r: DOT_R },
        ),
        Plot.dot(
          rows.filter((r) => !r.pass),
          { x: 'offeredOpsPerSec', y: 'y', stroke: 'series', symbol: 'series', fill: 'white', r: DOT_R },
        ),
      ],
    }),
    {
      columns: ['search', 'offered ops/s', 'latency', 'latency µs', 'step'],
      rows: points.map((p) => [
        p.search + 1,
        p.offeredOpsPerSec,
        p.series,
        p.latencyUs,
        p.pass ? 'pass' : 'fail',
      ]),
    },
  );
}
