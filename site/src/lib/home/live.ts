import type { SiteCellRow } from '@redis-benchdb/db';
import { pngOf } from '../build/png.js';
import { cellsChart } from '../charts/cells.js';
import { overTimeChart } from '../charts/over-time.js';
import type { Chart } from '../charts/render.js';
import { cellLeftOut, type LeftOut } from '../data/admit.js';
import { HEADLINE_SUITE, headlineCells } from '../data/data.js';
import { drawnOn, type EmbedTarget, stageEmbed } from '../embeds/embed.js';
import { paths } from '../routes/routes.js';
import { shortText } from '../text/text.js';
import { type HeadlineEntry, headlineEntries, rankNames } from './headline.js';

/**
 * Charts over "all results so far": they change when results arrive, so their embeds are offered
 * as live only, and say so. A chart frozen to its results is a result's or a run group's chart.
 */
export function liveEmbed(chart: Chart, sourcePath: string, source: string): EmbedTarget {
  const t: EmbedTarget = {
    chart,
    pagePath: paths.liveChartPage(chart.id),
    svgPath: paths.liveChartSvg(chart.id),
    pngPath: pngOf(paths.liveChartSvg(chart.id)),
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
    ? shortText(c.machineLabel ?? `${c.cpuModel ?? 'unknown CPU'} (${c.virtualizationKind ?? '?'})`, 120).text
    : `${c.serverProduct ?? 'unknown'} ${shortText(c.serverVersion ?? '?', 60).text}`;

/** The headline of the standard baseline per machine or per server version: see headline.ts for the rule. */
export interface Headline {
  chart: Chart;
  /** Every entry shown, in headline order, GET and SET. */
  entries: HeadlineEntry[];
  /** The names in that order. */
  ranked: string[];
  /** The first GET entry with two signers or more: what the page names as the headline; null when none has. */
  top: HeadlineEntry | null;
}

export function headlineChart(by: 'machine' | 'version', limit = 20): Headline | null {
  const entries = headlineEntries(headlineCells(), (c) => name(c, by));
  if (entries.length === 0) return null;
  const ranked = rankNames(entries, 'GET').slice(0, limit);
  const shown = ranked.flatMap((n) => entries.filter((e) => e.name === n));
  const signersOf = new Map(shown.map((e) => [e.name, e.signers]));
  // A name backed by one signer says so on the chart itself: an embed travels without the page's table.
  const label = (n: string) => (signersOf.get(n) === 1 ? `${n} (1 signer)` : n);
  const chart = cellsChart(
    shown.map((e) => ({
      cell: label(e.name),
      series: e.label,
      opsPerSec: e.opsPerSec,
      ci95Low: null,
      ci95High: null,
    })),
    {
      id: `headline-by-${by}`,
      title: `${HEADLINE_SUITE} baseline GET and SET per ${by === 'machine' ? 'machine' : 'server version'}: median over signers`,
      source: `${HEADLINE_SUITE} baseline cells (50 connections, no pipelining, 256-byte values, 1M keys); each figure the median of its signers' medians, ${shown.reduce((n, e) => n + (e.label === 'GET' ? e.results : 0), 0)} GET results from ${new Set(shown.map((e) => e.name)).size} ${by === 'machine' ? 'machines' : 'versions'}; entries from one signer ranked last`,
    },
  );
  const top = entries.find((e) => e.label === 'GET' && e.name === ranked[0] && e.signers >= 2) ?? null;
  return { chart, entries: shown, ranked, top };
}

/** A machine's or version's history: its results' baseline GET and SET over time. */
/** Results a history chart draws: the newest. Thousands of dots would weigh a page down and read no better. */
export const HISTORY_LIMIT = 300;

export function historyChart(
  resultIds: ReadonlySet<string>,
  id: string,
  title: string,
  leftOut?: LeftOut,
): Chart | null {
  // One line per machine kind and configuration: a line across kinds or settings draws their
  // difference as if it were a change over time. Only admitted cells (admit.ts); the rest are counted.
  const cells = headlineCells().filter((c) => {
    if (!resultIds.has(c.resultId) || c.opsMedian === null) return false;
    const why = cellLeftOut(c);
    leftOut?.add(c.resultId, why);
    return why.length === 0;
  });
  const shown = new Set<string>();
  for (const c of cells) if (shown.size < HISTORY_LIMIT) shown.add(c.resultId); // newest first
  const kinds = new Set(cells.map((c) => `${c.machineKey}\u0000${c.configKey}`));
  const pts = cells
    .filter((c) => shown.has(c.resultId))
    .map((c) => ({
      series:
        kinds.size > 1
          ? `${c.label} · ${shortText(c.machineLabel ?? '?', 70).text}${c.configDefault === 1 ? '' : ` · ${c.configLabel}`}`
          : c.label,
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
