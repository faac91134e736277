import { readFileSync } from 'node:fs';
import type { CellFigureRow, SiteResultRow } from '@redis-benchdb/db';
import type { ResultV1 } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { latencyUnit, linearTicks, logTicks, timeTicks } from '../src/lib/charts/axes.js';
import { sweepTicks } from '../src/lib/charts/sweep.js';
import type { IndexRow } from '../src/lib/lists/filters.js';
import { warningBadge } from '../src/lib/lists/list-row.js';
import { nextSort, parseSort, sortRows, withSort } from '../src/lib/lists/sort.js';
import { BEFORE_PUBLISHED, RUNNER_COMMAND, reproduceCommands } from '../src/lib/results/reproduce.js';
import { dateText, resultTitle, type TitleParts } from '../src/lib/text/titles.js';
import {
  budgetBlocks,
  compareVersions,
  machineBlocks,
  machinesInOrder,
  serverFacts,
} from '../src/lib/versions/versions.js';
import { indexRow } from './index-row.js';

// The version and list pages' logic, on plain rows: which results are set side by side, in which
// order, how lists sort, what a title and a reproduce line say, and the charts' ticks.

const result = (id: string, o: Partial<SiteResultRow>): SiteResultRow => ({
  id,
  kind: 'signed',
  receivedAt: '2025-03-04T12:00:00Z',
  startedAt: '2025-03-04T10:00:00Z',
  suiteId: 'standard-v1',
  suiteProfile: 'full',
  cpuModel: 'AMD EPYC',
  cpuCores: 2,
  cpuThreads: 2,
  virtualizationKind: 'vm',
  hypervisor: 'KVM',
  serverProduct: 'redis',
  serverVersion: '7.4.1',
  allocator: 'jemalloc-5.3.0',
  ioThreads: 1,
  persistenceOn: 0,
  linkKind: 'tcp-loopback',
  warningCodes: null,
  keyFingerprint: 'k',
  signer: 'k',
  runGroupId: null,
  runGroupLabel: null,
  runGroupIndex: null,
  cellCount: 2,
  copyOf: null,
  cpuCaches: null,
  machineKey: 'm1|AMD',
  machineLabel: 'AMD EPYC · 2 vCPU · KVM',
  configKey: 'c1|default',
  configLabel: 'io-threads 1',
  configDefault: 1,
  incomplete: 0,
  ...o,
});

const cell = (resultId: string, idx: number, label: string, ops: number, o: Partial<CellFigureRow> = {}) =>
  ({
    resultId,
    idx,
    label,
    test: label.split(' ')[0]!,
    workloadFingerprint: `fp-${label}`,
    opsMedian: ops,
    opsCi95Low: ops * 0.95,
    opsCi95High: ops * 1.05,
    p50Us: 100,
    p99Us: 400,
    unstable: 0,
    errors: 0,
    ...o,
  }) satisfies CellFigureRow;

describe('versions side by side', () => {
  const rows = [
    result('valkey', { serverProduct: 'valkey', serverVersion: '8.0.1', runGroupId: 'g' }),
    result('r74', { runGroupId: 'g' }),
    result('r74-older-full', { startedAt: '2025-01-01T00:00:00Z', cellCount: 3 }),
    result('r62', { serverVersion: '6.2.16', runGroupId: 'g' }),
    result('r710', { serverVersion: '7.10.0', runGroupId: 'g' }),
    result('r74-io2', { ioThreads: 2 }),
    result('r74-aof', { persistenceOn: 1 }),
    result('adhoc', { suiteId: null }),
  ];
  const cells: CellFigureRow[] = [
    ...['valkey', 'r74', 'r62', 'r710', 'r74-io2', 'r74-aof'].flatMap((id, i) => [
      cell(id, 0, 'SET', 100 + i),
      cell(id, 1, 'GET', 200 + i),
    ]),
    cell('r74-older-full', 0, 'SET', 90),
    cell('r74-older-full', 1, 'GET', 180),
    cell('r74-older-full', 2, 'GET P16', 900),
  ];
  const cellsOf = (ids: readonly string[]) => cells.filter((c) => ids.includes(c.resultId));
  const persistence = (id: string) => (id === 'r74-aof' ? 'AOF fsync everysec' : null);

  it('keep each configuration apart and leave out results of no suite', () => {
    const blocks = machineBlocks(rows, persistence, cellsOf);
    expect(blocks.map((b) => b.config)).toEqual([
      'io-threads 1 · no persistence · tcp-loopback',
      'io-threads 1 · AOF fsync everysec · tcp-loopback',
      'io-threads 2 · no persistence · tcp-loopback',
    ]);
    expect(blocks.flatMap((b) => b.series.flatMap((s) => s.results.map((r) => r.id)))).not.toContain('adhoc');
  });

  it('order versions numerically, Redis before Valkey, and ratio each cell to the reference by fingerprint', () => {
    const [main] = machineBlocks(rows, persistence, cellsOf, { product: 'redis', version: '7.4.1' });
    expect(main!.series.map((s) => `${s.product} ${s.version}`)).toEqual([
      'redis 6.2.16',
      'redis 7.4.1',
      'redis 7.10.0',
      'valkey 8.0.1',
    ]);
    expect(main!.reference).toBe(1);
    // The reference's shown result is its fullest (3 cells); the others, from the same run group
    // as that one if any, else their fullest: they have one result each here.
    expect(main!.series[1]!.primary.id).toBe('r74-older-full');
    const get = main!.cells.find((c) => c.label === 'GET')!;
    expect(get.figures.map((f) => f?.opsMedian)).toEqual([202, 180, 203, 200]);
    expect(get.figures[0]!.ratio).toBeCloseTo(202 / 180);
    expect(get.figures[1]!.ratio).toBeNull();
    // GET P16 ran only in the reference's result: the others show nothing for it, not a pooled figure.
    expect(main!.cells.find((c) => c.label === 'GET P16')!.figures.map((f) => f?.opsMedian ?? null)).toEqual([
      null,
      900,
      null,
      null,
    ]);
  });

  it('prefer, for the other versions, a result from the reference run group', () => {
    const more = [
      ...rows,
      result('r62-newer-solo', { serverVersion: '6.2.16', startedAt: '2025-06-01T00:00:00Z' }),
    ];
    const withGroupRef = machineBlocks(
      more.filter((r) => r.id !== 'r74-older-full'),
      persistence,
      cellsOf,
      { product: 'redis', version: '7.4.1' },
    )[0]!;
    expect(withGroupRef.series[0]!.primary.id).toBe('r62');
    expect(withGroupRef.series[0]!.results).toHaveLength(2);
  });

  it('leave out a cell whose replies were mostly errors', () => {
    const bad = cells.map((c) =>
      c.resultId === 'r62' && c.label === 'GET' ? { ...c, errors: 1 as const } : c,
    );
    const [main] = machineBlocks(rows, persistence, (ids) => bad.filter((c) => ids.includes(c.resultId)));
    expect(main!.cells.find((c) => c.label === 'GET')!.figures[0]).toBeNull();
  });

  it('read the release tag from the server block, and nothing from a block without it', () => {
    expect(serverFacts(JSON.stringify({ version: '7.9.224', build: { tag: '8.0-m01' } })).tag).toBe(
      '8.0-m01',
    );
    expect(serverFacts(JSON.stringify({ version: '7.4.1' })).tag).toBeNull();
    expect(serverFacts('not json')).toEqual({ tag: null, persistence: null });
    expect(
      serverFacts(JSON.stringify({ persistence: { save: '', appendonly: true, appendfsync: 'always' } }))
        .persistence,
    ).toBe('AOF fsync always');
  });

  it('show first the machine with the most versions, then the one where this version ran the full profile', () => {
    const on = (slug: string, versions: string[], cellCount: number, extra = 0) => ({
      slug,
      rows: [
        ...versions.map((v) => result(`${slug}-${v}`, { serverVersion: v, cellCount, cpuCaches: slug })),
        // io-threads or AOF variants: more results, no more versions.
        ...Array.from({ length: extra }, (_, i) =>
          result(`${slug}-variant-${i}`, {
            serverVersion: versions[0],
            ioThreads: 2,
            cellCount,
            cpuCaches: slug,
          }),
        ),
      ],
    });
    const quickWithVariants = on('quick', ['7.4.1', '8.0.1'], 30, 6);
    const full = on('full', ['7.4.1', '8.0.1'], 43);
    const fewer = on('fewer', ['7.4.1'], 43, 9);
    const noSuite = { slug: 'adhoc', rows: [result('adhoc-7.4.1', { suiteId: null, cpuCaches: 'adhoc' })] };
    const machines = [fewer, quickWithVariants, noSuite, full];
    const version = machines.flatMap((m) => m.rows).filter((r) => r.serverVersion === '7.4.1');
    const order = machinesInOrder(version, machines, (r) => r.cpuCaches!);
    expect(order.map((o) => [o.machine.slug, o.versions])).toEqual([
      ['full', 2],
      ['quick', 2],
      ['fewer', 1],
    ]);
  });

  it('a version page draws every machine’s first block before any machine’s second, within its budgets', () => {
    const block = (config: string) => ({ config, series: [], reference: 0, cells: [] });
    const on = (machine: string, n: number) => ({
      machine,
      blocks: Array.from({ length: n }, (_, i) => block(`${machine}-${i}`)),
    });
    const drawn = (b: ReturnType<typeof budgetBlocks<string>>) =>
      b.map((m) => [m.machine, m.drawn.map((x) => x.config), m.listed.length]);
    // The project's own data: at most four configurations on a machine, all drawn.
    expect(drawn(budgetBlocks([on('a', 4), on('b', 1), on('c', 2)], 4, 10))).toEqual([
      ['a', ['a-0', 'a-1', 'a-2', 'a-3'], 0],
      ['b', ['b-0'], 0],
      ['c', ['c-0', 'c-1'], 0],
    ]);
    // Synthetic scale: 19 configurations on each of six machines; the rest are named, not drawn.
    const big = budgetBlocks(
      ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'].map((m) => on(m, 19)),
      4,
      10,
    );
    expect(big.map((m) => m.drawn.length)).toEqual([2, 2, 2, 2, 1, 1]);
    expect(big.map((m) => m.drawn.length + m.listed.length)).toEqual([19, 19, 19, 19, 19, 19]);
    expect(big[0]!.drawn.map((x) => x.config)).toEqual(['m1-0', 'm1-1']);
    // One machine alone stops at its own limit.
    expect(drawn(budgetBlocks([on('a', 9)], 4, 10))).toEqual([['a', ['a-0', 'a-1', 'a-2', 'a-3'], 5]]);
  });

  it('compare versions as numbers', () => {
    const vs = ['7.10.0', '7.2.6', '6.0.20', '7.9.224', '7.2.6-rc1'];
    expect([...vs].sort(compareVersions)).toEqual(['6.0.20', '7.2.6', '7.2.6-rc1', '7.9.224', '7.10.0']);
  });
});

const row = (id: string, o: Partial<IndexRow>) => indexRow({ id, ...o });

describe('sorting lists', () => {
  it('keeps the sort in the URL beside the filters', () => {
    expect(parseSort('?product=redis&sort=get-ops&order=asc')).toEqual({ key: 'get-ops', order: 'asc' });
    expect(parseSort('?sort=get-p99')).toEqual({ key: 'get-p99', order: 'asc' });
    expect(parseSort('?sort=nonsense')).toBeNull();
    expect(withSort('?product=redis', { key: 'set-ops', order: 'desc' })).toBe(
      '?product=redis&sort=set-ops&order=desc',
    );
    expect(withSort('?sort=set-ops&order=desc', null)).toBe('');
    expect(nextSort({ key: 'get-ops', order: 'desc' }, 'get-ops')).toEqual({ key: 'get-ops', order: 'asc' });
    expect(nextSort(null, 'get-p99')).toEqual({ key: 'get-p99', order: 'asc' });
  });

  it('orders by the figure, results without it last either way', () => {
    const rows = [
      row('a', { getOps: 100 }),
      row('b', {}),
      row('c', { getOps: 300 }),
      row('d', { getOps: 200 }),
    ];
    expect(sortRows(rows, { key: 'get-ops', order: 'desc' }).map((r) => r.id)).toEqual(['c', 'd', 'a', 'b']);
    expect(sortRows(rows, { key: 'get-ops', order: 'asc' }).map((r) => r.id)).toEqual(['a', 'd', 'c', 'b']);
    const dated = [row('x', { date: '2013-07' }), row('y', { date: '2025-03-04T10:00:00Z' })];
    expect(sortRows(dated, { key: 'date', order: 'desc' }).map((r) => r.id)).toEqual(['y', 'x']);
  });
});

describe('titles', () => {
  const base: TitleParts = {
    kind: 'signed',
    product: 'redis',
    version: '7.0.15',
    cpu: 'AMD EPYC',
    date: '2025-03-04T10:00:00Z',
    profile: 'quick',
    tests: null,
    figure: { label: 'GET', ops: 117_529 },
  };

  it('tell apart results of one version on one CPU by date, profile or tests, and figure', () => {
    const titles = [
      resultTitle(base),
      resultTitle({ ...base, date: '2025-03-05T10:00:00Z' }),
      resultTitle({ ...base, profile: 'full' }),
      resultTitle({ ...base, figure: { label: 'GET', ops: 98_000 } }),
      resultTitle({ ...base, profile: null, tests: ['HSET __key__ field __data__'], figure: null }),
    ];
    expect(new Set(titles).size).toBe(titles.length);
    expect(titles[0]).toBe('Redis 7.0.15 on AMD EPYC · 4 Mar 2025 · quick profile · GET 118k ops/s');
    expect(titles[4]).toBe('Redis 7.0.15 on AMD EPYC · 4 Mar 2025 · HSET __key__ field __data__');
  });

  it('date an imported result by its publication, as precisely as the source gives it', () => {
    expect(dateText('2013', 'imported')).toBe('published 2013');
    expect(dateText('2013-07', 'imported')).toBe('published Jul 2013');
    expect(dateText('2013-07-01', 'imported')).toBe('published 1 Jul 2013');
    expect(dateText(null, 'imported')).toBe('publication undated');
  });
});

describe('reproduce', () => {
  const root = new URL('../../', import.meta.url);
  const example = (f: string) =>
    JSON.parse(readFileSync(new URL(`schemas/examples/valid/${f}`, root), 'utf8')) as ResultV1;

  it('gives an ad hoc run its flags in full, a custom command word for word', () => {
    const lines = reproduceCommands(example('adhoc-open-loop-macos.json'));
    expect(lines).toEqual([
      // Its server (not launched by the runner) kept RDB snapshots on: part of the configuration.
      '# the server ran with: save 3600 1 300 100 60 10000',
      'npx redis-benchdb run -t get -c 20 --duration 10 --warmup 1 -P 1 -d 64-1024 -r 100000 --key-pattern zipf --preload --rate 50000 --arrival poisson --threads 2 --seed 42 -s SOCKET --resp3',
      'npx redis-benchdb run -c 50 -n 200000 -P 8 --pipeline-mode window -d 32 -r 10000 --threads 2 --seed 42 --trials 2 -s SOCKET --resp3 HSET __key__ field __data__',
    ]);
  });

  it("starts with the runner's published name, and names the forms that work before it is published", () => {
    const pkg = (p: string) => JSON.parse(readFileSync(new URL(p, root), 'utf8'));
    const cli = pkg('packages/cli/package.json');
    expect(RUNNER_COMMAND).toBe(`npx ${cli.name}`);
    expect(Object.keys(cli.bin)).toEqual([cli.name]);
    expect(pkg('package.json').scripts[cli.name]).toBeDefined();
    expect(BEFORE_PUBLISHED.clone).toBe(`pnpm -s ${cli.name}`);
    expect(BEFORE_PUBLISHED.tarball).toBe(`npx -y -p ./${cli.name}-VERSION.tgz ${cli.name}`);
  });

  it('gives a suite run its profile', () => {
    expect(reproduceCommands(example('suite-run.json'))).toEqual(['npx redis-benchdb run --profile quick']);
  });

  it('gives a launched server its whole configuration and pinning; says how an external server ran', () => {
    const r = example('suite-run.json');
    r.environment.server!.ioThreads = 2;
    r.environment.server!.persistence = { save: '', appendonly: true, appendfsync: 'always' };
    r.environment.client.numa.serverCpus = '1';
    r.environment.client.numa.clientCpus = '0';
    expect(reproduceCommands(r)).toEqual([
      '# the server ran with: io-threads 2; appendonly yes; appendfsync always',
      'npx redis-benchdb run --profile quick',
    ]);
    (r as ResultV1 & { runGroup: unknown }).runGroup = {
      id: 'a',
      index: 0,
      size: 2,
      label: 'x',
      varies: ['serverBin'],
    };
    expect(reproduceCommands(r)).toEqual([
      "npx redis-benchdb run --profile quick --server-bin redis-server --server-config 'io-threads 2' --server-config 'appendonly yes' --server-config 'appendfsync always' --server-cpus 1 --client-cpus 0",
    ]);
  });

  it("names the submitter's host and socket by placeholders; a loopback address as it was", () => {
    const r = example('suite-run.json');
    const at = (host: string, port: number, socket: string | null) => {
      r.target = { ...r.target, host, port, socket };
      return reproduceCommands(r)[0];
    };
    expect(at('db7.corp.internal', 6380, null)).toBe('npx redis-benchdb run --profile quick -h HOST -p 6380');
    expect(at('10.1.2.3', 6379, null)).toBe('npx redis-benchdb run --profile quick -h HOST -p 6379');
    expect(at('127.0.0.1', 6380, null)).toBe('npx redis-benchdb run --profile quick -h 127.0.0.1 -p 6380');
    expect(at('127.0.0.1', 6379, '~/run/redis.sock')).toBe('npx redis-benchdb run --profile quick -s SOCKET');
  });

  it('runs plain tests with the same flags from one -t list, and quotes what a shell would split', () => {
    const r = example('adhoc-open-loop-macos.json');
    const get = r.cells[0]!;
    const set = structuredClone(get);
    set.workload.test = 'SET';
    const custom = structuredClone(r.cells[1]!);
    custom.workload.command = ['SET', 'k', "it's here"];
    r.cells = [get, set, custom];
    const lines = reproduceCommands(r).filter((l) => !l.startsWith('#'));
    expect(lines[0]).toMatch(/^npx redis-benchdb run -t get,set /);
    expect(lines[1]).toMatch(/ SET k 'it'\\''s here'$/);
  });
});

describe('chart ticks', () => {
  it('linear: from 0 to a round step at or above the largest value', () => {
    expect(linearTicks(262_408)).toEqual([0, 100_000, 200_000, 300_000]);
    expect(linearTicks(340_000).at(-1)).toBeGreaterThanOrEqual(340_000);
  });

  it('log: 1-2-5 steps around the data, powers of ten when there would be too many', () => {
    expect(logTicks(0.371, 4.235)).toEqual([0.2, 0.5, 1, 2, 5]);
    expect(logTicks(5, 50_000)).toEqual([1, 10, 100, 1000, 10_000, 100_000]);
  });

  it('sweep: a tick at each value run, and the largest labelled when thinned', () => {
    expect(sweepTicks([16, 1, 4, 64, 4])).toEqual([1, 4, 16, 64]);
    const ten = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
    expect(sweepTicks(ten)).toEqual([2, 8, 32, 128, 512]);
    expect(sweepTicks(ten.slice(0, 9))).toEqual([1, 4, 16, 64, 256]);
    // At the narrow drawing's room for four labels, every third from the largest.
    expect(sweepTicks(ten, 4)).toEqual([1, 8, 64, 512]);
  });

  it('a warning badge says what it counts: kinds in a list, all and kinds on a result page', () => {
    expect(warningBadge(0)).toBeNull();
    expect(warningBadge(6)?.text).toBe('6 kinds of warning');
    expect(warningBadge(1)?.text).toBe('1 kind of warning');
    expect(warningBadge(6, 61)?.text).toBe('61 warnings, 6 kinds');
  });

  it('latency in ms once it passes a millisecond', () => {
    expect(latencyUnit(42_000)).toEqual({ unit: 'ms', div: 1000 });
    expect(latencyUnit(900)).toEqual({ unit: 'µs', div: 1 });
  });

  it('time: whole days around one day of results, months over a longer span', () => {
    const day = timeTicks([Date.parse('2025-03-04T10:15:00Z')]);
    expect(day.monthly).toBe(false);
    expect(day.ticks.map((t) => t.toISOString().slice(0, 10))).toEqual(['2025-03-04', '2025-03-05']);
    const span = timeTicks([Date.parse('2024-01-15T10:00:00Z'), Date.parse('2025-02-20T10:00:00Z')]);
    expect(span.monthly).toBe(true);
    expect(span.ticks[0]!.getTime()).toBeLessThanOrEqual(Date.parse('2024-01-15T10:00:00Z'));
    expect(span.ticks.at(-1)!.getTime()).toBeGreaterThan(Date.parse('2025-02-20T10:00:00Z'));
  });
});
