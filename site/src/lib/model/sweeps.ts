import type { CellView } from './model.js';

/** The axes a result's cells sweep, in the field's words and units. */
export const SWEEP_AXES = {
  pipeline: {
    field: 'pipelineDepth',
    label: 'Pipeline depth (requests in flight per connection)',
    short: 'pipeline depth',
  },
  'value-size': { field: 'valueSizeMax', label: 'Value size (bytes)', short: 'value size' },
  keyspace: { field: 'keyspaceSize', label: 'Key space (keys)', short: 'key space' },
  connections: { field: 'connections', label: 'Connections', short: 'connections' },
} as const;

export type SweepAxis = keyof typeof SWEEP_AXES;
export const SWEEP_AXIS_NAMES = Object.keys(SWEEP_AXES) as SweepAxis[];

/** One point of a sweep: the cell's throughput at one value of the swept axis. */
export interface SweepPoint {
  /** The series: what is held fixed while the axis varies ("GET", or a result's label on a group page). */
  series: string;
  x: number;
  opsPerSec: number;
  ci95Low: number | null;
  ci95High: number | null;
  /** What ci95Low–ci95High is: "range of 3 trials", "95% interval of the median of 10 trials". */
  spread?: string | null;
  cellLabel: string;
}

type AxisField = (typeof SWEEP_AXES)[SweepAxis]['field'];
const WORKLOAD_FIELDS = [
  'test',
  'connections',
  'pipelineDepth',
  'pipelineMode',
  'valueSizeMin',
  'valueSizeMax',
  'keyspaceSize',
  'keyPattern',
  'rateOpsPerSec',
] as const;

/**
 * The cells that differ from each other only along `axis`, grouped into series. A sweep is a
 * one-factor experiment: two cells belong to one line only if every other workload field is equal,
 * so a line never mixes a pipeline change with a value-size change. A line needs two points.
 */
export function sweepPoints(cells: readonly CellView[], axis: SweepAxis, seriesPrefix = ''): SweepPoint[] {
  const field: AxisField = SWEEP_AXES[axis].field;
  const groups = new Map<string, CellView[]>();
  for (const c of cells) {
    if (c[field] === null || c.rateOpsPerSec !== null) continue;
    if (axis === 'value-size' && c.valueSizeMin !== c.valueSizeMax) continue;
    const rest = WORKLOAD_FIELDS.filter(
      (f) => f !== field && !(axis === 'value-size' && f === 'valueSizeMin'),
    )
      .map((f) => String(c[f]))
      .join('|');
    const g = groups.get(rest);
    if (g) g.push(c);
    else groups.set(rest, [c]);
  }
  const points: SweepPoint[] = [];
  for (const g of groups.values()) {
    const xs = new Set(g.map((c) => c[field]));
    if (xs.size < 2) continue;
    for (const c of g.sort((a, b) => (a[field] as number) - (b[field] as number)))
      points.push({
        series: `${seriesPrefix}${c.test}`,
        x: c[field] as number,
        opsPerSec: c.opsMedian,
        ci95Low: c.opsLow,
        ci95High: c.opsHigh,
        spread: c.opsSpread,
        cellLabel: c.label,
      });
  }
  return points;
}
