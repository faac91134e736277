import { ogSvg } from '../build/og.js';
import { pngOf } from '../build/png.js';
import { stageFile } from '../build/stage.js';
import { formatOps } from '../charts/format.js';
import type { Chart } from '../charts/render.js';
import { toCompareInput } from '../compare/compare.js';
import { noiseOf } from '../data/noise.js';
import { asOf, type EmbedTarget, stageEmbed } from '../embeds/embed.js';
import type { ResultView } from '../model/model.js';
import { paths } from '../routes/routes.js';
import { sourceLine } from './result-charts.js';

/** A result chart's embed: frozen by construction, since a result never changes once stored. */
export function resultEmbed(r: ResultView, chart: Chart): EmbedTarget {
  return {
    chart,
    pagePath: paths.chartPage(r.id, chart.id),
    svgPath: paths.chartSvg(r.id, chart.id),
    pngPath: pngOf(paths.chartSvg(r.id, chart.id)),
    sourcePath: paths.result(r.id),
    source: sourceLine(r),
    freshness: `frozen: result ${r.id.slice(0, 12)} never changes`,
    // The run's day; an imported result's publication, else the day it was imported into data/ (never the database's build).
    asOf: asOf([
      r.startedAt ??
        (r.kind === 'imported'
          ? (r.source?.publishedAt ?? r.source?.importedAt ?? r.receivedAt)
          : r.receivedAt),
    ]),
  };
}

/** Everything a result page puts beside itself: chart files, iframe pages, raw and compare JSON, OG card. */
export function stageResultFiles(r: ResultView, targets: readonly EmbedTarget[]): void {
  for (const t of targets) stageEmbed(t);
  stageFile(paths.resultRaw(r.id), r.raw);
  stageFile(paths.resultCompareJson(r.id), JSON.stringify(toCompareInput(r, noiseOf(r))));
  const get = r.cells.find((c) => c.label === 'GET');
  const set = r.cells.find((c) => c.label === 'SET');
  stageFile(
    paths.ogImage(r.id).replace(/\.png$/, '.svg'),
    ogSvg({
      kicker:
        r.kind === 'imported' ? 'redis-benchdb · imported published result' : 'redis-benchdb · signed result',
      title: `${r.server.product ?? 'server'} ${r.server.version ?? ''}`.trim(),
      lines: [
        r.machine.cpuModel ?? 'unknown CPU',
        `${r.machine.virtualization ?? 'virtualization unknown'} · ${r.cells.length} cells`,
        ...(get ? [`GET ${formatOps(get.opsMedian)} ops/s`] : []),
        ...(set ? [`SET ${formatOps(set.opsMedian)} ops/s`] : []),
      ],
      footer: `result ${r.id.slice(0, 12)}`,
    }),
  );
}
