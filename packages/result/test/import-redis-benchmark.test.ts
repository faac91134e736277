import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  findRedisBenchmarkCommand,
  ImportError,
  type ImportedV1,
  msToUs,
  parseRedisBenchmarkCsv,
  parseRedisBenchmarkText,
  percentileFromDistribution,
  redisBenchmarkFlags,
  sha256Of,
  terminalText,
  validateImported,
} from '../src/index.js';

// Real redis-benchmark 7.0.15 output (see fixtures/README.md). The expected figures are read from
// the same files here by separate, simpler means: regular expressions and parseFloat.
const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');
const COMMANDS = JSON.parse(fixture('redis-benchmark-commands.json')).commands as Record<string, string>;
const options = (file: string) => ({
  title: file,
  importedAt: '2025-11-21T12:00:00Z',
  commandLine: COMMANDS[file.replace('.clean', '')]!,
});
/** ms as printed to µs, by float arithmetic: fine for the 3 decimals redis-benchmark prints. */
const us = (ms: string) => Math.round(Number.parseFloat(ms) * 1000);
/** What a terminal would leave of each line, the crude way: what follows the last \r. */
const screenLines = (text: string) => text.split('\n').map((l) => l.slice(l.lastIndexOf('\r') + 1).trim());

function valid(doc: ImportedV1) {
  expect(validateImported(doc)).toEqual({ ok: true });
  return doc;
}

describe('msToUs', () => {
  it('shifts the decimal point: exact, no float error', () => {
    expect(msToUs('0.263')).toBe(263);
    expect(msToUs('93.030')).toBe(93030);
    expect(msToUs('0.080')).toBe(80);
    expect(msToUs('648.191')).toBe(648191);
    expect(msToUs('1')).toBe(1000);
    expect(msToUs('0.0005')).toBe(0.5);
    expect(msToUs('1.001')).toBe(1001);
    expect(1.001 * 1000).not.toBe(1001); // why it is not done by multiplication
  });
  it('rejects what is not a plain decimal', () => {
    expect(() => msToUs('-1')).toThrow(ImportError);
    expect(() => msToUs('nan')).toThrow(ImportError);
  });
});

describe('terminalText', () => {
  it('overwrites from column 0 at each carriage return, as a terminal does', () => {
    expect(terminalText('abcdef\rXY')).toBe('XYcdef');
    expect(terminalText('progress 12%\r            \rSET: 1.00 requests per second')).toBe(
      'SET: 1.00 requests per second',
    );
    expect(terminalText('a\r\nb')).toBe('a\nb');
  });
});

describe('parseRedisBenchmarkText: -q output', () => {
  const file = 'redis-benchmark-q.txt';
  const raw = fixture(file);
  const expected = screenLines(raw)
    .map((l) => /^(\w+): ([\d.]+) requests per second, p50=([\d.]+) msec$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ label: m[1], ops: Number.parseFloat(m[2]!), p50: us(m[3]!) }));

  it('has the three tests the tool printed', () => {
    expect(expected.map((e) => e.label)).toEqual(['SET', 'GET', 'LPUSH']);
  });

  it('returns exactly the rps and p50 the tool printed, progress lines and all', () => {
    const doc = valid(parseRedisBenchmarkText(raw, options(file)));
    expect(doc.cells.map((c) => ({ label: c.label, ops: c.opsPerSec, p50: c.latencyUs.p50Us }))).toEqual(
      expected,
    );
    for (const c of doc.cells) {
      expect(c.test).toBe(c.label);
      expect(c.latencyUs).toMatchObject({ avgUs: null, p99Us: null, maxUs: null });
      // -q prints no workload: it comes from the command line (-n 20000), the rest is unknown.
      expect(c.workload).toEqual({
        connections: null,
        pipelineDepth: null,
        valueSizeBytes: null,
        keyspaceSize: null,
        requests: 20000,
        threads: null,
        ratio: null,
        keepAlive: null,
        durationSec: null,
      });
    }
    expect(doc.source).toMatchObject({
      kind: 'redis-benchmark-text',
      contentSha256: sha256Of(raw),
      quote: null,
    });
    expect(doc.tool).toEqual({ name: 'redis-benchmark', version: null, commandLine: COMMANDS[file] });
    expect(doc.server).toEqual({ product: 'unknown', version: null });
    expect(doc.notes).toBeNull();
  });

  it('reads the same from what a terminal shows', () => {
    const raw2 = screenLines(raw).join('\n');
    expect(parseRedisBenchmarkText(raw2, options(file)).cells).toEqual(
      parseRedisBenchmarkText(raw, options(file)).cells,
    );
  });
});

/** The full output's figures, read independently: summary table and percentile-distribution lines. */
function expectedFull(text: string) {
  const blocks = screenLines(text)
    .join('\n')
    .split(/^====== /m)
    .slice(1);
  return blocks.map((b) => {
    const label = /^(\S+) ======/.exec(b)![1]!;
    const ops = Number.parseFloat(/throughput summary: ([\d.]+) requests per second/.exec(b)![1]!);
    const table =
      /avg\s+min\s+p50\s+p95\s+p99\s+max\n\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)/.exec(
        b,
      )!;
    const percentiles = b.slice(
      b.indexOf('Latency by percentile distribution:'),
      b.indexOf('Cumulative distribution'),
    );
    const dist = [...percentiles.matchAll(/^([\d.]+)% <= ([\d.]+) milliseconds/gm)].map((m) => ({
      percent: Number.parseFloat(m[1]!),
      us: us(m[2]!),
    }));
    const firstAtOrAbove = (p: number) => dist.find((d) => d.percent >= p)?.us ?? null;
    return {
      label,
      ops,
      latency: {
        avgUs: us(table[1]!),
        minUs: us(table[2]!),
        p50Us: us(table[3]!),
        p90Us: firstAtOrAbove(90),
        p95Us: us(table[4]!),
        p99Us: us(table[5]!),
        p999Us: firstAtOrAbove(99.9),
        maxUs: us(table[6]!),
      },
      exactP50: dist.find((d) => d.percent === 50)?.us,
    };
  });
}

describe('parseRedisBenchmarkText: full output (redis-benchmark 6.2+)', () => {
  const file = 'redis-benchmark-full.txt';
  const raw = fixture(file);
  const clean = fixture('redis-benchmark-full.clean.txt');
  const expected = expectedFull(raw);

  it('the fixture has progress lines, the clean one none', () => {
    expect(raw).toContain('\r');
    expect(clean).not.toContain('\r');
    expect(expected.map((e) => e.label)).toEqual(['SET', 'GET', 'LPUSH']);
  });

  it('returns the summary exactly as printed; p90 and p99.9 from the distribution lines', () => {
    const doc = valid(parseRedisBenchmarkText(raw, options(file)));
    expect(doc.cells.map((c) => ({ label: c.label, ops: c.opsPerSec, latency: c.latencyUs }))).toEqual(
      expected.map(({ label, ops, latency }) => ({ label, ops, latency })),
    );
    expect(doc.notes).toMatch(/p90Us, p999Us read from the 'Latency by percentile distribution' lines/);
  });

  it('reads the workload the output prints', () => {
    const doc = parseRedisBenchmarkText(raw, options(file));
    for (const c of doc.cells)
      expect(c.workload).toEqual({
        connections: 50,
        pipelineDepth: null,
        valueSizeBytes: 3,
        keyspaceSize: null,
        requests: 20000,
        threads: 1,
        ratio: null,
        keepAlive: true,
        durationSec: null,
      });
  });

  it('reads the same with and without the progress lines', () => {
    const a = parseRedisBenchmarkText(raw, options(file));
    const b = parseRedisBenchmarkText(clean, options('redis-benchmark-full.clean.txt'));
    expect(b.cells).toEqual(a.cells);
    expect(b.source.contentSha256).not.toBe(a.source.contentSha256); // each names its own text
  });

  it('the distribution rule gives the summary p50 where a line is at 50% exactly', () => {
    for (const e of expected) expect(e.exactP50).toBe(e.latency.p50Us);
  });

  it('the distribution rule is an upper bound of the summary percentiles (why the summary wins)', () => {
    const doc = parseRedisBenchmarkText(raw, options(file));
    const lines = (label: string) => {
      const block = screenLines(raw)
        .join('\n')
        .split(/^====== /m)
        .find((b) => b.startsWith(`${label} `))!;
      const part = block.slice(
        block.indexOf('Latency by percentile'),
        block.indexOf('Cumulative distribution'),
      );
      return [...part.matchAll(/^([\d.]+)% <= ([\d.]+) milliseconds/gm)].map((m) => ({
        percent: Number(m[1]),
        ms: m[2]!,
      }));
    };
    for (const c of doc.cells)
      for (const [p, field] of [
        [95, 'p95Us'],
        [99, 'p99Us'],
      ] as const)
        expect(percentileFromDistribution(lines(c.label), p)!).toBeGreaterThanOrEqual(c.latencyUs[field]!);
  });

  it('reads -P, -d, -r, -c and --threads: command line and output together', () => {
    const f = 'redis-benchmark-full-p16-threads.txt';
    const text = fixture(f);
    const doc = valid(parseRedisBenchmarkText(text, options(f)));
    expect(doc.cells.map((c) => c.label)).toEqual(['SET', 'GET']);
    expect(doc.cells.map((c) => ({ label: c.label, ops: c.opsPerSec, latency: c.latencyUs }))).toEqual(
      expectedFull(text).map(({ label, ops, latency }) => ({ label, ops, latency })),
    );
    for (const c of doc.cells)
      expect(c.workload).toEqual({
        connections: 20,
        pipelineDepth: 16,
        valueSizeBytes: 64,
        keyspaceSize: 1000,
        requests: 20000,
        threads: 2,
        ratio: null,
        keepAlive: true,
        durationSec: null,
      });
  });

  it('without a command line, leaves what only the command says null', () => {
    const doc = parseRedisBenchmarkText(fixture('redis-benchmark-full-p16-threads.txt'), {
      title: 'x',
      importedAt: '2025-11-21T12:00:00Z',
    });
    expect(doc.tool.commandLine).toBeNull();
    expect(doc.cells[0]!.workload).toMatchObject({
      pipelineDepth: null,
      keyspaceSize: null,
      connections: 20,
    });
  });

  it('takes p50/p95/p99 from the distribution only when there is no summary table', () => {
    const text = [
      '====== GET ======',
      '  1000 requests completed in 0.01 seconds',
      'Latency by percentile distribution:',
      '0.000% <= 0.100 milliseconds (cumulative count 1)',
      '50.000% <= 0.200 milliseconds (cumulative count 500)',
      '93.750% <= 0.300 milliseconds (cumulative count 940)',
      '99.902% <= 0.900 milliseconds (cumulative count 999)',
      '100.000% <= 1.000 milliseconds (cumulative count 1000)',
      'Cumulative distribution of latencies:',
      '100.000% <= 1.103 milliseconds (cumulative count 1000)',
      'Summary:',
      '  throughput summary: 100000.00 requests per second',
    ].join('\n');
    const cell = parseRedisBenchmarkText(text, { title: 't', importedAt: '2025-11-21T12:00:00Z' }).cells[0]!;
    expect(cell.latencyUs).toEqual({
      avgUs: null,
      minUs: null,
      p50Us: 200,
      p90Us: 300,
      p95Us: 900,
      p99Us: 900,
      p999Us: 900,
      maxUs: null,
    });
  });
});

// Redis 2.x's format, as the Redis documentation printed it (old "Benchmarks" page, indented as a
// literal block there).
const OLD_FULL = `    ./redis-benchmark -n 100000

    ====== SET ======
      100007 requests completed in 0.88 seconds
      50 parallel clients
      3 bytes payload
      keep alive: 1

    58.50% <= 0 milliseconds
    99.17% <= 1 milliseconds
    99.58% <= 2 milliseconds
    99.85% <= 3 milliseconds
    99.90% <= 6 milliseconds
    100.00% <= 9 milliseconds
    114293.71 requests per second

    ====== GET ======
      100000 requests completed in 1.23 seconds
      50 parallel clients
      3 bytes payload
      keep alive: 1

    43.12% <= 0 milliseconds
    96.82% <= 1 milliseconds
    98.62% <= 2 milliseconds
    100.00% <= 3 milliseconds
    81234.77 requests per second`;

describe('parseRedisBenchmarkText: redis-benchmark 2.x output', () => {
  it('reads the blocks, and no percentile from whole-millisecond lines', () => {
    const doc = valid(parseRedisBenchmarkText(OLD_FULL, { title: 't', importedAt: '2025-11-21T12:00:00Z' }));
    expect(doc.tool.commandLine).toBe('./redis-benchmark -n 100000');
    expect(doc.cells.map((c) => [c.label, c.opsPerSec, c.workload.requests])).toEqual([
      ['SET', 114293.71, 100007],
      ['GET', 81234.77, 100000],
    ]);
    for (const c of doc.cells) {
      expect(Object.values(c.latencyUs).every((v) => v === null)).toBe(true);
      expect(c.workload).toMatchObject({
        connections: 50,
        valueSizeBytes: 3,
        keepAlive: true,
        pipelineDepth: null,
      });
    }
    expect(doc.notes).toMatch(/whole milliseconds/);
  });

  it('reads the -q form with names that have spaces, colons in commands and a prompt', () => {
    const text = [
      '$ numactl -C 6 ./redis-benchmark -q -n 100000 -s /tmp/redis.sock -d 256',
      'PING (inline): 200803.22 requests per second',
      'MSET (10 keys): 78064.01 requests per second',
      'LPUSH (again, in order to bench LRANGE): 200000.00 requests per second',
      'LRANGE (first 100 elements): 42123.00 requests per second',
      "script load redis.call('set','foo','bar'): 69881.20 requests per second",
    ].join('\n');
    const doc = valid(parseRedisBenchmarkText(text, { title: 't', importedAt: '2025-11-21T12:00:00Z' }));
    expect(doc.tool.commandLine).toBe(
      'numactl -C 6 ./redis-benchmark -q -n 100000 -s /tmp/redis.sock -d 256',
    );
    expect(doc.cells.map((c) => [c.label, c.test, c.opsPerSec])).toEqual([
      ['PING (inline)', 'PING', 200803.22],
      ['MSET (10 keys)', 'MSET', 78064.01],
      ['LPUSH (again, in order to bench LRANGE)', 'LPUSH', 200000],
      ['LRANGE (first 100 elements)', 'LRANGE', 42123],
      ["script load redis.call('set','foo','bar')", 'SCRIPT', 69881.2],
    ]);
    expect(doc.cells[0]!.workload).toMatchObject({
      requests: 100000,
      valueSizeBytes: 256,
      connections: null,
    });
  });

  it('refuses text without a result, and a test without its rate', () => {
    const o = { title: 't', importedAt: '2025-11-21T12:00:00Z' };
    expect(() => parseRedisBenchmarkText('', o)).toThrow(ImportError);
    expect(() => parseRedisBenchmarkText('hello\nworld', o)).toThrow(/no redis-benchmark result/);
    expect(() => parseRedisBenchmarkText('====== SET ======\n  50 parallel clients\n', o)).toThrow(/SET/);
  });
});

describe('command lines', () => {
  it('finds the command: first word, or after a prompt', () => {
    expect(findRedisBenchmarkCommand('x\n$ ./redis-benchmark -q\n')).toBe('./redis-benchmark -q');
    expect(findRedisBenchmarkCommand('redis-benchmark -t set -q')).toBe('redis-benchmark -t set -q');
    expect(findRedisBenchmarkCommand('Redis includes the redis-benchmark utility')).toBeNull();
  });
  it('reads the workload flags and nothing else', () => {
    expect(
      redisBenchmarkFlags(
        `redis-benchmark -h 127.0.0.1 -p 7000 -c 10 -n 500 -d 8 -P 4 -r 99 -k 0 --threads 3 -t set`,
      ),
    ).toEqual({
      connections: 10,
      pipelineDepth: 4,
      valueSizeBytes: 8,
      keyspaceSize: 99,
      requests: 500,
      threads: 3,
      ratio: null,
      keepAlive: false,
      durationSec: null,
    });
  });
});

describe('parseRedisBenchmarkCsv', () => {
  const file = 'redis-benchmark-csv.txt';
  const raw = fixture(file);

  it('returns exactly the figures of every row (6.2+ header form)', () => {
    const [header, ...rows] = raw
      .trim()
      .split('\n')
      .map((l) => l.split(',').map((f) => f.replaceAll('"', '')));
    expect(header).toEqual([
      'test',
      'rps',
      'avg_latency_ms',
      'min_latency_ms',
      'p50_latency_ms',
      'p95_latency_ms',
      'p99_latency_ms',
      'max_latency_ms',
    ]);
    const doc = valid(parseRedisBenchmarkCsv(raw, options(file)));
    expect(doc.source.kind).toBe('redis-benchmark-csv');
    expect(
      doc.cells.map((c) => [
        c.label,
        c.opsPerSec,
        c.latencyUs.avgUs,
        c.latencyUs.minUs,
        c.latencyUs.p50Us,
        c.latencyUs.p95Us,
        c.latencyUs.p99Us,
        c.latencyUs.maxUs,
      ]),
    ).toEqual(rows.map(([label, rps, ...ms]) => [label, Number.parseFloat(rps!), ...ms.map((m) => us(m))]));
    for (const c of doc.cells) expect(c.latencyUs).toMatchObject({ p90Us: null, p999Us: null });
    expect(doc.cells[0]!.workload.requests).toBe(20000);
  });

  it('reads the two-column form of redis-benchmark before 6.2', () => {
    // That version's CSV line: printf("\"%s\",\"%.2f\"\n", title, reqpersec).
    const doc = valid(
      parseRedisBenchmarkCsv('"PING_INLINE","46189.38"\n"LRANGE_100 (first 100 elements)","20000.00"\n', {
        title: 't',
        importedAt: '2025-11-21T12:00:00Z',
      }),
    );
    expect(doc.cells.map((c) => [c.label, c.test, c.opsPerSec])).toEqual([
      ['PING_INLINE', 'PING', 46189.38],
      ['LRANGE_100 (first 100 elements)', 'LRANGE', 20000],
    ]);
    expect(Object.values(doc.cells[0]!.latencyUs).every((v) => v === null)).toBe(true);
  });

  it("refuses a CSV that is not redis-benchmark's", () => {
    const o = { title: 't', importedAt: '2025-11-21T12:00:00Z' };
    expect(() => parseRedisBenchmarkCsv('', o)).toThrow(ImportError);
    expect(() => parseRedisBenchmarkCsv('"a","b"\n"x","y"\n', o)).toThrow(ImportError);
  });
});
