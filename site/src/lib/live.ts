import type { SiteCellRow } from '@redis-benchdb/db';
import { cellsChart } from './charts/cells.js';
import { overTimeChart } from './charts/over-time.js';
import type { Chart } from './charts/render.js';
import { bestBy, HEADLINE_SUITE, headlineCells } from './data.js';
import { drawnOn, type EmbedTarget, stageEmbed } from './embed.js';
import { paths } from './routes.js';
import { shortText } from './text.js';

/**
 * Charts over "all results so far": they change when results arrive, so their embeds are offered
 * as live only, and say so. A chart frozen to its results is a result's or a run group's chart.
 */
export function liveEmbed(chart: Chart, sourcePath: string, source: string): EmbedTarget {
  const t: EmbedTarget = {
    chart,
    pagePath: paths.liveChartPage(chart.id),
    svgPath: paths.liveChartSvg(chart.id),
    pngPath: paths.liveChartSvg(chart.id).replace(/\.svg$/, '.png'),
    sourcePath,
    source,
    freshness: 'live: follows new results at each build',
    asOf: drawnOn(),
  };
  stageEmbed(t);
  return t;
}

// A series name in a chart's legend and table: submitted text, cut so that one cannot crowd out the rest.
const name = (c: SiteCellRow, by: 'machine' | 'version') =>
  by === 'machine'
    ? `${shortText(c.cpuModel ?? 'unknown CPU', 60).text} (${c.virtualizationKind ?? '?'})`
    : `${c.serverProduct ?? 'unknown'} ${shortText(c.serverVersion ?? '?', 60).text}`;

/** The best baseline GET and SET per machine or per server version. */
export function headlineChart(
  by: 'machine' | 'version',
  limit = 20,
): { chart: Chart; cells: SiteCellRow[] } | null {
  const best = bestBy(headlineCells(), (c) => name(c, by));
  if (best.length === 0) return null;
  const top = [
    ...new Set(
      best
        .filter((c) => c.label === 'GET')
        .sort((a, b) => (b.opsMedian ?? 0) - (a.opsMedian ?? 0))
        .map((c) => name(c, by)),
    ),
  ].slice(0, limit);
  const shown = best.filter((c) => top.includes(name(c, by)));
  const chart = cellsChart(
    shown.map((c) => ({
      cell: name(c, by),
      series: c.label,
      opsPerSec: c.opsMedian ?? 0,
      ci95Low: c.opsCi95Low,
      ci95High: c.opsCi95High,
    })),
    {
      id: `headline-by-${by}`,
      title: `Best ${HEADLINE_SUITE} baseline GET and SET per ${by === 'machine' ? 'machine' : 'server version'}`,
      source: `${HEADLINE_SUITE} baseline cells (50 connections, no pipelining, 256-byte values, 1M keys), best result per ${by}`,
    },
  );
  return { chart, cells: shown };
}

/** A machine's or version's history: its results' baseline GET and SET over time. */
/** Results a history chart draws: the newest. Thousands of dots would weigh a page down and read no better. */
export const HISTORY_LIMIT = 300;

export function historyChart(resultIds: ReadonlySet<string>, id: string, title: string): Chart | null {
  const cells = headlineCells().filter((c) => resultIds.has(c.resultId) && c.opsMedian !== null);
  const shown = new Set<string>();
  for (const c of cells) if (shown.size < HISTORY_LIMIT) shown.add(c.resultId); // newest first
  const pts = cells
    .filter((c) => shown.has(c.resultId))
    .map((c) => ({
      series: c.label,
      at: c.startedAt ?? c.receivedAt,
      opsPerSec: c.opsMedian!,
      resultId: c.resultId,
    }));
  if (pts.length === 0) return null;
  const total = new Set(cells.map((c) => c.resultId)).size;
  const scope = total > shown.size ? `, the newest ${shown.size} of ${total} results` : '';
  return overTimeChart(pts, {
    id,
    title: `${title}${scope}`,
    source: `${HEADLINE_SUITE} baseline cells${scope}`,
  });
}
