import * as Plot from '@observablehq/plot';
import { linearTicks, logScale, logTicks, opsTick } from './axes.js';
import { CHAR_EM, formatOps } from './format.js';
import { type Chart, chartOf, DOT_R, INSET, marginFor, marginRightFor, NARROW, renderSvg } from './render.js';

/**
 * One bar: a cell's median throughput in one result, with the trials' spread (packages/result
 * spread.ts: a 95% interval of the median from 6 trials, else their range; `spread` says which).
 */
export interface CellBar {
  cell: string;
  series: string;
  opsPerSec: number;
  ci95Low: number | null;
  ci95High: number | null;
  /** What ci95Low–ci95High is ("range of 3 trials"); the data table names it. */
  spread?: string | null;
}

export interface CellsChartOptions {
  id: string;
  title: string;
  source: string;
}

/**
 * Throughput by cell, a dot per series with its trials' spread: the compare and group view, where
 * the same cells of several results sit side by side. Dots, not bars, so several series stay
 * readable on one row.
 */
export function cellsChart(bars: readonly CellBar[], o: CellsChartOptions): Chart {
  const series = [...new Set(bars.map((b) => b.series))];
  const alt = `Dot chart of operations per second by cell for ${series.join(' and ')}; ${o.source}. ${bars
    .map((b) => `${b.cell}, ${b.series}: ${formatOps(b.opsPerSec)} ops/s`)
    .join('; ')}.`;
  const lo = Math.min(...bars.map((b) => b.ci95Low ?? b.opsPerSec));
  const hi = Math.max(...bars.map((b) => b.ci95High ?? b.opsPerSec));
  // Cells from 5k to 2M ops/s side by side: on a linear axis the slow ones would sit on the zero
  // line, so a wide range gets a log axis, on which equal ratios are equal distances.
  const log = lo > 0 && hi / lo > 20;
  const ticks = log ? logTicks(lo, hi) : linearTicks(hi);
  const words = { id: o.id, title: o.title, alt, series };
  const svgs = dotRowsSvg(
    bars.map((b) => ({ cell: b.cell, series: b.series, x: b.opsPerSec, low: b.ci95Low, high: b.ci95High })),
    {
      ...(log
        ? logScale(ticks, opsTick)
        : { type: 'linear' as const, domain: [ticks[0]!, ticks.at(-1)!], ticks, tickFormat: opsTick }),
      label: `ops/s (median of trials${log ? ', log scale' : ''})`,
    },
    [],
    words,
  );
  return chartOf(words, svgs, {
    columns: ['cell', 'series', 'ops/s', 'spread low', 'spread high', 'spread'],
    rows: bars.map((b) => [
      b.cell,
      b.series,
      Math.round(b.opsPerSec),
      r(b.ci95Low),
      r(b.ci95High),
      b.spread ?? null,
    ]),
  });
}

/** A dot on a row of a dot-rows chart, with its interval (a faint bar) where it has one. */
export interface DotRow {
  cell: string;
  series: string;
  x: number;
  low: number | null;
  high: number | null;
}

/** A row per cell: room for a label of one line, or of two where one wraps; narrow, a label line above the dots. */
const ROW = 26;
const ROW_TWO_LINES = 34;
const ROW_NARROW = 32;
/** A cell label wider than this wraps onto a second line: "(first 100 elements of a long list)" carries meaning. */
const LABEL_CHARS = 24;

/**
 * A row per cell and a dot per series on it, with each dot's interval as a faint bar: the shape of
 * the cells chart (ops/s) and the versions chart (ratios). `under` are marks drawn beneath the dots.
 * Wide, the cell labels sit left of their rows; narrow, where a label column would leave the dots
 * a third of the width, each sits above its row, across the whole width, and every other x tick goes.
 */
export function dotRowsSvg(
  rows: readonly DotRow[],
  x: Omit<Plot.ScaleOptions, 'ticks' | 'tickFormat'> & { ticks: number[]; tickFormat: (v: number) => string },
  under: Plot.Markish[],
  o: { title: string; alt: string; series: readonly string[] },
): { svg: string; narrow: string } {
  const cells = [...new Set(rows.map((p) => p.cell))];
  // Math.max(0, ...): a chart whose every cell was left out (the explorer's admission rule) has no rows.
  const longest = Math.min(LABEL_CHARS, Math.max(0, ...cells.map((c) => c.length)));
  return renderSvg(
    (s) => {
      const narrow = s === NARROW;
      const ticks =
        narrow && x.ticks.length > 4 ? x.ticks.filter((_, i) => i % 2 === (x.ticks.length - 1) % 2) : x.ticks;
      // Narrow, a label wraps across the width (lineWidth is in ems), growing upwards from just
      // above its dots; the rows make room for the longest ("… (bare-metal) (1 signer)" was cut).
      const room = s.width - 24;
      const lines = Math.max(1, ...cells.map((c) => Math.ceil((c.length * CHAR_EM * s.font) / room)));
      const rowNarrow = ROW_NARROW + (lines - 1) * (s.font + 3);
      const labels = narrow
        ? Plot.text(cells, {
            y: (d: string) => d,
            text: (d: string) => d,
            frameAnchor: 'left',
            textAnchor: 'start',
            lineAnchor: 'bottom',
            dy: -8,
            lineWidth: room / s.font,
          })
        : // Plot wraps a label at lineWidth ems, so a long one takes two lines rather than losing its end.
          Plot.axisY({ label: null, lineWidth: LABEL_CHARS * CHAR_EM });
      return {
        height:
          82 +
          cells.length *
            (narrow ? rowNarrow : longest < Math.max(0, ...cells.map((c) => c.length)) ? ROW_TWO_LINES : ROW),
        marginTop: narrow ? 16 + lines * (s.font + 3) - rowNarrow / 2 : 12,
        marginLeft: narrow ? 12 : marginFor(['x'.repeat(longest)], s),
        marginRight: marginRightFor(x.tickFormat(ticks.at(-1)!), s),
        x: { grid: true, inset: INSET, ...x, ticks },
        y: { label: null, domain: cells, axis: null },
        marks: [
          labels,
          ...under,
          Plot.ruleY(
            rows.filter((p) => p.low !== null && p.high !== null),
            { y: 'cell', x1: 'low', x2: 'high', stroke: 'series', strokeWidth: 3, strokeOpacity: 0.4 },
          ),
          Plot.dot(rows, { y: 'cell', x: 'x', fill: 'series', symbol: 'series', r: DOT_R }),
        ],
      };
    },
    o.title,
    o.alt,
    o.series,
  );
}

const r = (n: number | null) => (n === null ? null : Math.round(n));
