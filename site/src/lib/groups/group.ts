import { ogSvg } from '../build/og.js';
import { pngOf } from '../build/png.js';
import { stageFile } from '../build/stage.js';
import { cellsChart } from '../charts/cells.js';
import { latencyChart, latencyPoints } from '../charts/latency.js';
import type { Chart } from '../charts/render.js';
import { MOST_SERIES, sweepChart } from '../charts/sweep.js';
import { type Comparison, compareResults, toCompareInput } from '../compare/compare.js';
import { noiseOf } from '../data/noise.js';
import { asOf, type EmbedTarget, stageEmbed } from '../embeds/embed.js';
import type { ResultView } from '../model/model.js';
import { SWEEP_AXES, SWEEP_AXIS_NAMES, sweepPoints } from '../model/sweeps.js';
import { paths } from '../routes/routes.js';
import { shortText } from '../text/text.js';

/** A member's name inside its group: what distinguishes it (the runner's label), else its server. */
export function memberName(r: ResultView): string {
  return shortText(r.runGroup?.label || `${r.server.product ?? '?'} ${r.server.version ?? ''}`.trim(), 80)
    .text;
}

/** A run-wide warning that some members of a group carry and others do not. */
export interface GroupCaveat {
  code: string;
  /** The members that carry it, by name. */
  members: string[];
  /** The first carrier's own words. */
  message: string;
  /** Whether every carrier said exactly that (else the message's figures are the first's alone). */
  sameWords: boolean;
}

/**
 * The run-wide warnings that set members apart (IO_THREADS_OVER_CPUS on the io-threads 2 members,
 * say): a side-by-side table reads as "this one is slower" unless the page says why. Warnings every
 * member carries (VM, SAME_HOST) qualify the whole group and are on each result's page.
 */
export function groupCaveats(members: readonly ResultView[]): GroupCaveat[] {
  const byCode = new Map<string, { members: string[]; message: string; sameWords: boolean }>();
  for (const m of members) {
    const seen = new Set<string>();
    for (const w of m.warnings) {
      if (w.cell !== null || seen.has(w.code)) continue;
      seen.add(w.code);
      const entry = byCode.get(w.code) ?? { members: [], message: w.message, sameWords: true };
      entry.sameWords &&= entry.message === w.message;
      entry.members.push(memberName(m));
      byCode.set(w.code, entry);
    }
  }
  return [...byCode]
    .filter(([, e]) => e.members.length < members.length)
    .map(([code, e]) => ({ code, ...e }));
}

/**
 * A run group side by side: the same charts as a result page, a series per member, and the cell-by-
 * cell comparison against the first member. A group's membership is fixed when it runs, so its
 * charts are frozen like a result's.
 */
export function groupPage(
  groupId: string,
  members: ResultView[],
): { comparison: Comparison | null; targets: EmbedTarget[] } {
  const source = `run group ${groupId.slice(0, 12)}: ${members.map(memberName).join(' vs ')}`;
  // Members of an interleaved group are paired round by round inside compareResults (comparePair).
  const comparison =
    members.length >= 2
      ? compareResults(members.map((m) => ({ ...toCompareInput(m, noiseOf(m)), name: memberName(m) })))
      : null;
  // No chart draws more than MOST_SERIES (sweep.ts) members (issue 44): a larger group is drawn in parts, each
  // with the first member beside its own, so every part still has the group's reference in it.
  const charts = seriesParts(members).flatMap((part) =>
    groupCharts(
      part.members.map((i) => members[i]!),
      comparison && {
        ...comparison,
        cells: comparison.cells.map((c) => ({ ...c, values: part.members.map((i) => c.values[i] ?? null) })),
      },
      source,
      part.name,
    ),
  );
  const date = asOf(members.map((m) => m.startedAt ?? m.receivedAt));
  const targets = charts.map((chart) => {
    const t: EmbedTarget = {
      chart,
      pagePath: paths.groupChartPage(groupId, chart.id),
      svgPath: paths.groupChartSvg(groupId, chart.id),
      pngPath: pngOf(paths.groupChartSvg(groupId, chart.id)),
      sourcePath: paths.group(groupId),
      source,
      freshness: 'frozen: a run group never changes',
      asOf: date,
    };
    stageEmbed(t);
    return t;
  });
  stageFile(
    paths.groupOgImage(groupId).replace(/\.png$/, '.svg'),
    ogSvg({
      kicker: 'redis-benchdb · run group',
      title: `${members.length} results side by side`,
      lines: members.map(memberName),
      footer: `group ${groupId.slice(0, 12)}`,
    }),
  );
  return { comparison, targets };
}

/**
 * The members each chart of a group draws, by index: all of them when they fit; else one part per
 * product (Redis, then Valkey...), each led by the first member, and a product still too large in
 * slices. `name` goes into the chart's title and id.
 */
export function seriesParts(
  members: readonly Pick<ResultView, 'server'>[],
  most = MOST_SERIES,
): { name: string | null; members: number[] }[] {
  if (members.length <= most) return [{ name: null, members: [...members.keys()] }];
  const byProduct = new Map<string, number[]>();
  members.forEach((m, i) => {
    if (i === 0) return;
    const p = m.server.product ?? 'unknown';
    byProduct.set(p, [...(byProduct.get(p) ?? []), i]);
  });
  const parts: { name: string | null; members: number[] }[] = [];
  for (const [product, idx] of byProduct)
    for (let k = 0; k < idx.length; k += most - 1) {
      const slice = idx.slice(k, k + most - 1);
      const name = idx.length > most - 1 ? `${product} ${Math.floor(k / (most - 1)) + 1}` : product;
      parts.push({ name, members: [0, ...slice] });
    }
  return parts;
}

/** One part's charts: throughput by cell, each sweep, and latency; ids and titles name the part. */
function groupCharts(
  members: readonly ResultView[],
  comparison: Comparison | null,
  source: string,
  part: string | null,
): Chart[] {
  const id = (x: string) => (part ? `${x}-${part.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}` : x);
  const title = (x: string) => (part ? `${x}: ${part} (with ${memberName(members[0]!)})` : x);
  const charts: Chart[] = [];
  if (comparison?.cells.length)
    charts.push(
      cellsChart(
        comparison.cells.flatMap((c) =>
          c.values.flatMap((v, i) =>
            v
              ? [
                  {
                    cell: c.label,
                    series: memberName(members[i]!),
                    opsPerSec: v.median,
                    ci95Low: v.lo,
                    ci95High: v.hi,
                    spread: members[i]!.cells.find((x) => x.workloadFingerprint === c.fp)?.opsSpread ?? null,
                  },
                ]
              : [],
          ),
        ),
        { id: id('cells'), title: title('Throughput by cell, side by side'), source },
      ),
    );
  for (const axis of SWEEP_AXIS_NAMES) {
    const pts = members.flatMap((m) => sweepPoints(m.cells, axis, `${memberName(m)} · `));
    if (pts.length)
      charts.push(
        sweepChart(pts, {
          axis,
          title: title(`Throughput by ${SWEEP_AXES[axis].short}`),
          source,
          id: id(axis),
        }),
      );
  }
  const lat = members.flatMap((m) => {
    const get = m.cells.find((c) => c.label === 'GET') ?? m.cells[0];
    return get ? latencyPoints(get, `${memberName(m)} · ${get.label}`) : [];
  });
  if (lat.length)
    charts.push(latencyChart(lat, { title: title('Latency by percentile'), source, id: id('latency') }));
  return charts;
}
