import { cellsChart } from '../charts/cells.js';
import { latencyChart, latencyPoints } from '../charts/latency.js';
import type { Chart } from '../charts/render.js';
import { sloChart, sloPoints } from '../charts/slo.js';
import { sweepChart } from '../charts/sweep.js';
import type { CellView, ResultView } from '../model/model.js';
import { SWEEP_AXES, SWEEP_AXIS_NAMES, sweepPoints } from '../model/sweeps.js';
import { slug } from '../routes/routes.js';
import { shortText } from '../text/text.js';

/** Where a result's figures come from, said on every chart of it (submitted text cut: it is one line). */
export function sourceLine(r: ResultView): string {
  const cut = (s: string | null | undefined, fallback: string) => (s ? shortText(s, 80).text : fallback);
  const what =
    r.kind === 'imported'
      ? `imported from "${cut(r.source?.title, 'a publication')}"`
      : 'measured by redis-benchdb';
  const suite = r.suite ? `${r.suite.id} ${r.suite.profile ?? ''}`.trim() : 'ad hoc cells';
  return `result ${r.id.slice(0, 12)}, ${what}, ${suite}, ${r.server.product ?? 'server'} ${cut(r.server.version, '')} on ${cut(r.machine.cpuModel, 'unknown CPU')}`.replace(
    /\s+/g,
    ' ',
  );
}

/** The charts of one result page: each sweep it has, and the latency distribution of its key cells. */
export function resultCharts(r: ResultView): Chart[] {
  const src = sourceLine(r);
  const charts: Chart[] = [];
  for (const axis of SWEEP_AXIS_NAMES) {
    const pts = sweepPoints(r.cells, axis);
    if (pts.length)
      charts.push(sweepChart(pts, { axis, title: `Throughput by ${SWEEP_AXES[axis].short}`, source: src }));
  }
  const lat = latencyCells(r.cells).flatMap((c) => latencyPoints(c));
  if (lat.length) charts.push(latencyChart(lat, { title: 'Latency by percentile', source: src }));
  for (const c of r.cells) {
    const pts = c.slo ? sloPoints(c.slo) : [];
    if (!c.slo || pts.length === 0) continue;
    charts.push(
      sloChart(pts, {
        id: `slo-${slug(c.label)}`,
        title: `${c.label}: latency against offered load (max ops/s at ${c.slo.objective})`,
        source: src,
        objectiveUs: c.slo.maxUs,
        objective: c.slo.objective,
        answerOpsPerSec: c.slo.answerOpsPerSec,
      }),
    );
  }
  if (r.kind === 'imported' && r.cells.length > 1)
    charts.push(
      cellsChart(
        r.cells.map((c) => ({
          cell: c.label,
          series: 'published',
          opsPerSec: c.opsMedian,
          ci95Low: null,
          ci95High: null,
        })),
        { id: 'cells', title: 'Throughput by test, as published', source: src },
      ),
    );
  return charts;
}

/** The cells whose latency is worth a line: the baseline GET and SET, and the deepest pipelined GET. */
export function latencyCells(cells: readonly CellView[]): CellView[] {
  const picked: CellView[] = [];
  for (const label of ['GET', 'SET']) {
    const c = cells.find((x) => x.label === label);
    if (c) picked.push(c);
  }
  const deepest = cells
    .filter((c) => c.test === 'GET' && (c.pipelineDepth ?? 1) > 1 && c.rateOpsPerSec === null)
    .sort((a, b) => (b.pipelineDepth ?? 0) - (a.pipelineDepth ?? 0))[0];
  if (deepest) picked.push(deepest);
  if (picked.length === 0 && cells[0]) picked.push(cells[0]);
  return picked.filter((c) => c.histogram || c.latencyUs);
}
