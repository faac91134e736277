import { describe, expect, it } from 'vitest';
import { type CellBar, cellsChart } from '../src/lib/charts/cells.js';
import { latencyChart, nines } from '../src/lib/charts/latency.js';
import { overTimeChart } from '../src/lib/charts/over-time.js';
import { standaloneSvg } from '../src/lib/charts/render.js';
import { sweepChart } from '../src/lib/charts/sweep.js';
import type { SweepPoint } from '../src/lib/sweeps.js';

// Charts are pure functions from rows to SVG text: fixed rows must give the stored SVG, byte for
// byte (as Observable Plot's own snapshot tests do). After an intended change, look at the new
// files and update them with `npx vitest run site/test/charts.test.ts -u`.
const sweep: SweepPoint[] = [1, 4, 16, 64].flatMap((x) => [
  {
    series: 'GET',
    x,
    opsPerSec: 100_000 * Math.sqrt(x),
    ci95Low: 95_000 * Math.sqrt(x),
    ci95High: 104_000 * Math.sqrt(x),
    cellLabel: `GET P${x}`,
  },
  {
    series: 'SET',
    x,
    opsPerSec: 90_000 * Math.sqrt(x),
    ci95Low: null,
    ci95High: null,
    cellLabel: `SET P${x}`,
  },
]);

describe('chart snapshots', () => {
  it('sweep', async () => {
    const c = sweepChart(sweep, {
      axis: 'pipeline',
      title: 'Throughput by pipeline depth',
      source: 'fixed rows',
    });
    await expect(c.svg).toMatchFileSnapshot('snapshots/sweep-pipeline.svg');
    expect(c.table.rows).toHaveLength(8);
  });

  it('latency', async () => {
    const pts = [50, 90, 99, 99.9, 99.99].flatMap((p) => [
      { series: 'GET', percentile: p, latencyUs: Math.round(100 * 2 ** nines(p)) },
      { series: 'SET', percentile: p, latencyUs: Math.round(120 * 2.5 ** nines(p)) },
    ]);
    await expect(
      latencyChart(pts, { title: 'Latency by percentile', source: 'fixed rows' }).svg,
    ).toMatchFileSnapshot('snapshots/latency.svg');
  });

  it('cells, side by side', async () => {
    const bars: CellBar[] = ['GET', 'SET', 'LRANGE_100 (first 100 elements of a long list)'].flatMap(
      (cell, i) => [
        {
          cell,
          series: 'io-threads 1',
          opsPerSec: 100_000 - i * 20_000,
          ci95Low: 98_000 - i * 20_000,
          ci95High: 102_000 - i * 20_000,
        },
        {
          cell,
          series: 'io-threads 2',
          opsPerSec: 130_000 - i * 20_000,
          ci95Low: 127_000 - i * 20_000,
          ci95High: 133_000 - i * 20_000,
        },
      ],
    );
    await expect(
      cellsChart(bars, { id: 'cells', title: 'Throughput by cell', source: 'fixed rows' }).svg,
    ).toMatchFileSnapshot('snapshots/cells.svg');
  });

  it('over time', async () => {
    const pts = ['2024-01-15T10:00:00Z', '2024-06-01T10:00:00Z', '2025-02-20T10:00:00Z'].flatMap((at, i) => [
      { series: 'GET', at, opsPerSec: 120_000 + i * 10_000, resultId: `${i}`.repeat(64) },
      { series: 'SET', at, opsPerSec: 110_000 + i * 9_000, resultId: `${i}`.repeat(64) },
    ]);
    await expect(
      overTimeChart(pts, { id: 'history', title: 'Baseline over time', source: 'fixed rows' }).svg,
    ).toMatchFileSnapshot('snapshots/over-time.svg');
  });

  it('standalone file carries the title and the source line, and escapes both', async () => {
    const c = sweepChart(sweep, { axis: 'pipeline', title: 'T <&> "q"', source: 'x' });
    const file = standaloneSvg(c, 'result 0123456789ab, CPU <img src=x onerror=alert(1)>');
    expect(file).toContain(
      'Source: redis-benchdb, result 0123456789ab, CPU &lt;img src=x onerror=alert(1)&gt;',
    );
    expect(file).toContain('T &lt;&amp;&gt; "q"');
    await expect(file).toMatchFileSnapshot('snapshots/standalone-sweep.svg');
  });
});

describe('hostile text in a chart', () => {
  it('never becomes markup: in labels, legends and alt text it is escaped', () => {
    const evil = '</text><script>alert(1)</script><text>';
    const c = sweepChart(
      sweep.map((p) => ({ ...p, series: evil })),
      { axis: 'pipeline', title: evil, source: `CPU "${evil}"` },
    );
    expect(c.svg).not.toContain('<script>');
    expect(c.svg).not.toContain('</text><script');
    expect(c.svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
