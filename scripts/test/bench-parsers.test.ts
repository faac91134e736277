import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readBenchdbCells, redisBenchdbArgs } from '../lib/redis-benchdb.mjs';
import { parseRedisBenchmarkCsv, redisBenchmarkArgs, redisBenchmarkPeer } from '../lib/redis-benchmark.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
// Real redis-benchmark 7 --csv output, and a schema-valid result with a SET and a GET cell (the
// schema tests hold it to schemas/result.v1, so it follows the format when the format changes).
const CSV = readFileSync(`${root}packages/result/test/fixtures/redis-benchmark-csv.txt`, 'utf8');
const suiteRun = () => JSON.parse(readFileSync(`${root}schemas/examples/valid/suite-run.json`, 'utf8'));

const tcp = { host: '127.0.0.1', port: 16379 };
const workload = {
  target: tcp,
  tests: ['set', 'get'],
  connections: 50,
  valueSize: 256,
  keyspaceSize: 100_000,
  requests: 1000,
  pipelineDepth: 16,
};

describe('parseRedisBenchmarkCsv', () => {
  it('reads each row of real output, latencies converted from ms to µs', () => {
    const rows = parseRedisBenchmarkCsv(CSV);
    expect(rows.map((r) => r.test)).toEqual(['SET', 'GET', 'LPUSH']);
    expect(rows[0]!.opsPerSec).toBe(86956.52);
    expect(rows[0]!.latencyUs.p50Us).toBeCloseTo(279, 6);
    expect(rows[0]!.latencyUs.p99Us).toBeCloseTo(711, 6);
    expect(rows[2]!.latencyUs.p99Us).toBeCloseTo(511, 6);
    for (const r of rows) expect(typeof r.opsPerSec).toBe('number');
  });

  it('skips lines that are not CSV (warnings on stdout)', () => {
    const rows = parseRedisBenchmarkCsv(`WARNING: Could not fetch server CONFIG\n${CSV}`);
    expect(rows).toHaveLength(3);
  });

  it('throws naming the test and column when a figure is not a number', () => {
    const broken = CSV.replace('"GET","86956.52"', '"GET","n/a"');
    expect(() => parseRedisBenchmarkCsv(broken)).toThrow(/GET rps is not a finite number: n\/a/);
    const empty = CSV.replace('"0.711"', '""');
    expect(() => parseRedisBenchmarkCsv(empty)).toThrow(/SET p99_latency_ms is not a finite number/);
  });

  it('throws naming a missing column, or when there is no CSV at all', () => {
    const [header, ...lines] = CSV.trim().split('\n');
    const noP99 = [header!.replace('"p99_latency_ms"', '"p98_latency_ms"'), ...lines].join('\n');
    expect(() => parseRedisBenchmarkCsv(noP99)).toThrow(/no p99_latency_ms column/);
    expect(() => parseRedisBenchmarkCsv('Could not connect to Redis at 127.0.0.1:1')).toThrow(/no CSV/);
  });
});

describe('redisBenchmarkPeer', () => {
  it('runs the documented command line and wants exactly the tests asked for', async () => {
    const calls: string[][] = [];
    const run = async (_tool: string, _bin: string, argv: string[]) => {
      calls.push(argv);
      return CSV;
    };
    await expect(redisBenchmarkPeer(run)(workload)).rejects.toThrow(/expected SET and GET rows/);
    const only = CSV.split('\n')
      .filter((l) => !l.startsWith('"LPUSH"'))
      .join('\n');
    const rows = await redisBenchmarkPeer(async () => only)(workload);
    expect(rows.map((r) => r.test)).toEqual(['SET', 'GET']);
    expect(calls[0]!.join(' ')).toBe(
      '-h 127.0.0.1 -p 16379 -t set,get -c 50 -d 256 -r 100000 -n 1000 -P 16 --csv',
    );
  });

  it('has no window mode, and speaks unix sockets and cluster mode', () => {
    expect(() => redisBenchmarkArgs({ ...workload, pipelineMode: 'window' })).toThrow(/no window mode/);
    const unix = redisBenchmarkArgs({ ...workload, target: { socket: '/tmp/r.sock' } });
    expect(unix.slice(0, 2)).toEqual(['-s', '/tmp/r.sock']);
    const cluster = redisBenchmarkArgs({ ...workload, cluster: true, threads: 1 });
    expect(cluster.join(' ')).toMatch(/^--cluster -h 127\.0\.0\.1 -p 16379 .* --threads 1 -n 1000/);
  });
});

describe('readBenchdbCells', () => {
  it('returns each cell with opsPerSec as the median over its trials, without histograms', () => {
    const doc = suiteRun();
    const cells = readBenchdbCells(JSON.stringify(doc), ['set', 'get']);
    expect(cells.map((c) => c.test)).toEqual(['SET', 'GET']);
    expect(cells.map((c) => c.opsPerSec)).toEqual(
      doc.cells.map((c: { opsPerSec: { median: number } }) => c.opsPerSec.median),
    );
    expect(cells[0]!.latencyUs.p50Us).toBe(doc.cells[0].latencyUs.p50Us);
    for (const c of cells) {
      expect(Number.isFinite(c.opsPerSec)).toBe(true);
      expect(c).not.toHaveProperty('histogram');
      expect(c).not.toHaveProperty('trials');
      expect(c).not.toHaveProperty('responseHistogram');
    }
  });

  it('accepts a server CPU share of null (not measured)', () => {
    const doc = suiteRun();
    doc.cells[1].saturation.serverMainThreadCpuShare = null;
    expect(readBenchdbCells(JSON.stringify(doc), ['set', 'get'])[1]!.saturation).toMatchObject({
      serverMainThreadCpuShare: null,
    });
  });

  it('throws naming the field when opsPerSec is read in an older shape (a plain number)', () => {
    const doc = suiteRun();
    for (const c of doc.cells) c.opsPerSec = c.opsPerSec.median;
    expect(() => readBenchdbCells(JSON.stringify(doc), ['set', 'get'], 'P1 batch')).toThrow(
      'redis-benchdb --json: cell SET (P1 batch): opsPerSec.median is missing (opsPerSec is 112340.5)',
    );
  });

  it.each([
    ['opsPerSec.median', null, /opsPerSec\.median is not a positive finite number: null/],
    ['opsPerSec.median', 0, /opsPerSec\.median is not a positive finite number: 0/],
    ['latencyUs.p99Us', '371', /latencyUs\.p99Us is not a finite number: "371"/],
    ['latencyUs.p50Us', undefined, /latencyUs\.p50Us is missing/],
    ['saturation.clientEventLoopUtilization', [0.5, null], /clientEventLoopUtilization\.1 is not a finite/],
    ['saturation.limitedBy', undefined, /saturation\.limitedBy is missing/],
    ['crossCheck', undefined, /crossCheck\.status is missing/],
  ])('throws when %s is %j', (path, value, message) => {
    const doc = suiteRun();
    const keys = path.split('.');
    const parent = keys.slice(0, -1).reduce((o, k) => o[k], doc.cells[1]);
    if (value === undefined) delete parent[keys.at(-1)!];
    else parent[keys.at(-1)!] = value;
    expect(() => readBenchdbCells(JSON.stringify(doc), ['set', 'get'])).toThrow(message);
  });

  it('throws on a failed cell, error replies, the wrong cells, or no JSON', () => {
    const failed = suiteRun();
    Object.assign(failed.cells[0], { incomplete: true, error: 'connection reset' });
    expect(() => readBenchdbCells(JSON.stringify(failed), ['set', 'get'])).toThrow(
      /cell SET failed: connection reset/,
    );
    const errors = suiteRun();
    errors.cells[1].errors = { OOM: 3 };
    expect(() => readBenchdbCells(JSON.stringify(errors), ['set', 'get'])).toThrow(/GET had error replies/);
    const doc = JSON.stringify(suiteRun());
    expect(() => readBenchdbCells(doc, ['set'])).toThrow(/want a document with 1 cells/);
    expect(() => readBenchdbCells(doc, ['set', 'lpush'])).toThrow(/no LPUSH cell \(cells: SET, GET\)/);
    expect(() => readBenchdbCells('error: ECONNREFUSED', ['set', 'get'])).toThrow(/want a document/);
  });
});

describe('redisBenchdbArgs', () => {
  it('asks for JSON, batch mode unless told, and keeps nothing in the local database unless told', () => {
    expect(redisBenchdbArgs(workload).join(' ')).toBe(
      'run -h 127.0.0.1 -p 16379 -t set,get -c 50 -d 256 -r 100000 -n 1000 -P 16 --pipeline-mode batch --json --no-store',
    );
    const window = redisBenchdbArgs({ ...workload, pipelineMode: 'window' }, { store: true });
    expect(window.slice(-3)).toEqual(['--pipeline-mode', 'window', '--json']);
    const unix = redisBenchdbArgs({ ...workload, target: { socket: '/tmp/r.sock' } });
    expect(unix.slice(0, 3)).toEqual(['run', '-s', '/tmp/r.sock']);
    const cluster = redisBenchdbArgs({ ...workload, cluster: true, threads: 1 });
    expect(cluster.join(' ')).toMatch(/^run --cluster -h 127\.0\.0\.1 -p 16379 .* --threads 1 -n 1000/);
  });
});
