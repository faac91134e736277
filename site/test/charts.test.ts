import { describe, expect, it } from 'vitest';
import { ogSvg } from '../src/lib/build/og.js';
import { type CellBar, cellsChart } from '../src/lib/charts/cells.js';
import { latencyChart, nines } from '../src/lib/charts/latency.js';
import { overTimeChart } from '../src/lib/charts/over-time.js';
import { sloChart, sloPoints } from '../src/lib/charts/slo.js';
import { standaloneSvg } from '../src/lib/charts/standalone.js';
import { sweepChart } from '../src/lib/charts/sweep.js';
import type { SweepPoint } from '../src/lib/model/sweeps.js';

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
    await expect(c.narrow).toMatchFileSnapshot('snapshots/sweep-pipeline-narrow.svg');
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

  it('latency against offered load (an SLO search): a hockey stick, the objective a rule', async () => {
    // An M/D/1-like queue of capacity 100,000/s: flat, then up past 80% of it; the ramp then bisection.
    const rates = [25_000, 50_000, 100_000, 75_000, 87_500, 81_300];
    const steps = rates.map((r) => {
      const rho = r / 100_000;
      const p99 = Math.round(200 + 150 * (rho / (1 - Math.min(rho, 0.99))));
      return { offeredOpsPerSec: r, achievedOpsPerSec: r, p50Us: 120, objectiveUs: p99, pass: p99 <= 1000 };
    });
    const view = {
      objective: 'p99 ≤ 1 ms',
      percentile: 99,
      maxUs: 1000,
      answerOpsPerSec: 81_300,
      searches: [
        {
          answerOpsPerSec: 81_300,
          passOpsPerSec: 81_300,
          failOpsPerSec: 87_500,
          outcome: 'bracketed',
          reason: null,
          steps,
        },
      ],
    };
    const pts = sloPoints(view);
    expect(pts.filter((p) => p.series === 'p99').map((p) => p.offeredOpsPerSec)).toEqual(
      [...rates].sort((a, b) => a - b),
    );
    const c = sloChart(pts, {
      id: 'slo-get',
      title: 'GET p99<=1ms: latency against offered load',
      source: 'fixed rows',
      objectiveUs: 1000,
      objective: view.objective,
      answerOpsPerSec: 81_300,
    });
    expect(c.table.rows).toHaveLength(12);
    expect(c.alt).toContain('objective p99 ≤ 1 ms, answer 81300 ops/s');
    await expect(c.svg).toMatchFileSnapshot('snapshots/slo.svg');
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
    const file = standaloneSvg(c, {
      text: 'result 0123456789ab, CPU <img src=x onerror=alert(1)>',
      url: 'https://example.org/results/0123456789ab/?a=1&b=2',
      asOf: 'as of 2025-03-04',
    });
    expect(file).toContain('Source: redis-benchdb, result 0123456789ab, CPU &lt;img');
    expect(file).toContain('onerror=alert(1)&gt;');
    expect(file).not.toContain('<img');
    expect(file).toContain('T &lt;&amp;&gt; "q"');
    expect(file).toContain('<a href="https://example.org/results/0123456789ab/?a=1&amp;b=2">');
    expect(file).toContain('>as of 2025-03-04 ·<');
    expect(file).toContain(
      '<tspan fill="#0b57d0">https://example.org/results/0123456789ab/?a=1&amp;b=2</tspan>',
    );
    await expect(file).toMatchFileSnapshot('snapshots/standalone-sweep.svg');
  });

  it('a long source, title and address wrap onto as many lines as they need, none cut, none past the width', () => {
    const c = sweepChart(sweep, {
      axis: 'pipeline',
      title: `Throughput of ${'a long title '.repeat(6)}`,
      source: 'x',
    });
    const text = `result 0123456789ab, measured by redis-benchdb, standard-v1 quick, redis 7.4.1 on ${'Xeon '.repeat(30)}(1 signer)`;
    const url = `https://example.org/results/${'0123456789abcdef'.repeat(4)}/`;
    const file = standaloneSvg(c, { text, url, asOf: 'as of 2025-03-04' });
    const lines = [...file.matchAll(/<text x="8" y="\d+">(?:<tspan[^>]*>)?([^<]*)</g)].map((m) => m[1]!);
    const all = lines.join(' ');
    expect(all).toContain('(1 signer)');
    expect(lines.join('')).toContain(url);
    expect(all).toContain('a long title a long title');
    expect(all).not.toContain('…');
    // 380 units less 16 of padding, at 0.62 em a character of 14 units (the title, the largest text).
    for (const l of lines) expect(l.length * 0.62 * 11, l).toBeLessThanOrEqual(380 - 16);
    expect(lines.length).toBeGreaterThan(4);
  });
});

describe('SVG as XML', () => {
  it('names elements in SVG case, so an .svg file and resvg draw them', () => {
    const { svg } = sweepChart(sweep, { axis: 'pipeline', title: 'T', source: 'x' });
    const names = new Set([...svg.matchAll(/<([A-Za-z][\w-]*)/g)].map((m) => m[1]!));
    expect([...names].sort()).toEqual(['desc', 'g', 'line', 'path', 'rect', 'style', 'svg', 'text', 'title']);
    expect(svg).toContain('viewBox="0 0 800 400"');
  });

  it('drops characters XML 1.0 does not allow, from text and attributes', () => {
    const bad = `a\u0000b\u0007c\u001Fd\uFFFEe\uFFFF f\uD800g\uDC00h`;
    const c = sweepChart(
      sweep.map((p) => ({ ...p, series: `GET ${bad}` })),
      { axis: 'pipeline', title: bad, source: `CPU ${bad}` },
    );
    const file = standaloneSvg(c, {
      text: `CPU ${bad}`,
      url: 'https://example.org/',
      asOf: 'as of 2025-03-04',
    });
    // What XML 1.0 allows: tab, LF, CR, U+0020-U+D7FF, U+E000-U+FFFD, and whole surrogate pairs.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the test.
    expect(file).not.toMatch(/[\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/);
    expect(file).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(file).toContain('a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFD f\uFFFDg\uFFFDh');
    // A pair stays a pair: an emoji in a label is fine.
    expect(standaloneSvg(c, { text: 'CPU \u{1F680}', url: 'https://example.org/', asOf: 'x' })).toContain(
      '\u{1F680}',
    );
  });

  it('an .svg file with those characters still renders to PNG (resvg)', async () => {
    const { drawPng } = await import('@redis-benchdb/png');
    const bad = 'a\u0000b\u0008c\uFFFF\uD800';
    const c = sweepChart(sweep, { axis: 'pipeline', title: bad, source: bad });
    const file = standaloneSvg(c, { text: bad, url: 'https://example.org/', asOf: 'as of 2025-03-04' });
    const png = Buffer.from(drawPng(file, 200));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const og = ogSvg({ kicker: bad, title: bad, lines: [bad], footer: bad });
    expect(Buffer.from(drawPng(og, 200)).subarray(1, 4).toString()).toBe('PNG');
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

describe('a cells chart with no rows', () => {
  it('draws (the explorer may leave every cell of a workload out), with no NaN in the drawing', () => {
    const c = cellsChart([], { id: 'empty', title: 'Nothing admitted', source: 'all 0 server versions' });
    for (const svg of [c.svg, c.narrow]) {
      expect(svg).toMatch(/^<svg/);
      expect(svg).not.toMatch(/NaN|Infinity/);
    }
  });
});
