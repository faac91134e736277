import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ImportError, parseMemtierJson, sha256Of, validateImported } from '../src/index.js';

// A hand-made document in memtier_benchmark's JSON layout (see fixtures/README.md): it tests the
// reading of the layout, not any measurement.
const text = readFileSync(new URL('fixtures/memtier-handmade-layout.json', import.meta.url), 'utf8');
// Sections by name, each of fields by name; a test sets a field to a value of its own type.
const json = () => JSON.parse(text) as Record<string, Record<string, unknown>>;
const options = { title: 'memtier-handmade-layout.json', importedAt: '2025-11-21T12:00:00Z' };
const us = (ms: unknown) => Math.round((ms as number) * 1000);

describe('parseMemtierJson', () => {
  const doc = parseMemtierJson(text, options);

  it('validates, names the file and the tool', () => {
    expect(validateImported(doc)).toEqual({ ok: true });
    expect(doc.source).toMatchObject({ kind: 'memtier-json', contentSha256: sha256Of(text), quote: null });
    expect(doc.tool).toEqual({ name: 'memtier_benchmark', version: null, commandLine: null });
    expect(doc.server).toEqual({ product: 'unknown', version: null });
  });

  it('has a cell per command type that ran, and Totals (Waits did not run)', () => {
    expect(doc.cells.map((c) => [c.label, c.test])).toEqual([
      ['Sets', 'SET'],
      ['Gets', 'GET'],
      ['Totals', 'SET:GET 1:10'],
    ]);
  });

  it("returns each type's Ops/sec and latencies as the document has them, in µs", () => {
    const stats = json()['ALL STATS']!;
    for (const c of doc.cells) {
      const s = stats[c.label] as Record<string, unknown>;
      const p = s['Percentile Latencies'] as Record<string, unknown>;
      expect(c.opsPerSec).toBe(s['Ops/sec']);
      expect(c.latencyUs).toEqual({
        avgUs: us(s['Average Latency']),
        minUs: us(s['Min Latency']),
        p50Us: us(p['p50.00']),
        p90Us: null,
        p95Us: null,
        p99Us: us(p['p99.00']),
        p999Us: us(p['p99.90']),
        maxUs: us(s['Max Latency']),
      });
    }
    expect(doc.cells[0]!.latencyUs.avgUs).toBe(1601);
  });

  it('reads the workload from the configuration block', () => {
    for (const c of doc.cells)
      expect(c.workload).toEqual({
        connections: 200, // 50 clients per thread x 4 threads
        pipelineDepth: 1,
        valueSizeBytes: 32,
        keyspaceSize: 10000001, // key_minimum 0 .. key_maximum 10000000
        requests: 2000000, // 10000 per client x 200
        threads: 4,
        ratio: '1:10',
        keepAlive: true, // reconnect_interval 0
        durationSec: null,
      });
  });

  it('a timed run has a duration and no request count', () => {
    const d = json();
    d.configuration!.test_time = 60;
    const cell = parseMemtierJson(JSON.stringify(d), options).cells[0]!;
    expect(cell.workload).toMatchObject({ durationSec: 60, requests: null });
  });

  it('variable value sizes give no valueSizeBytes', () => {
    const d = json();
    d.configuration!.data_size_range = '32-512';
    expect(parseMemtierJson(JSON.stringify(d), options).cells[0]!.workload.valueSizeBytes).toBeNull();
  });

  it('reads p95 when memtier printed it (--print-percentiles 50,95,99)', () => {
    const d = json();
    const totals = d['ALL STATS']!.Totals as Record<string, Record<string, unknown>>;
    totals['Percentile Latencies']!['p95.00'] = 2.5;
    const cell = parseMemtierJson(JSON.stringify(d), options).cells.at(-1)!;
    expect(cell.latencyUs.p95Us).toBe(2500);
  });

  it('reads an older document with only Ops/sec and Latency per type, and no configuration', () => {
    const old = {
      'ALL STATS': {
        Sets: { 'Ops/sec': 1000.5, 'Hits/sec': 0, 'Misses/sec': 0, Latency: 0.25, 'KB/sec': 10 },
        Gets: { 'Ops/sec': 10005.25, 'Hits/sec': 9000, 'Misses/sec': 1005.25, Latency: 0.3, 'KB/sec': 100 },
        Waits: { 'Ops/sec': 0, 'Hits/sec': 0, 'Misses/sec': 0, Latency: 0, 'KB/sec': 0 },
        Totals: {
          'Ops/sec': 11005.75,
          'Hits/sec': 9000,
          'Misses/sec': 1005.25,
          Latency: 0.295,
          'KB/sec': 110,
        },
      },
    };
    const d = parseMemtierJson(JSON.stringify(old), options);
    expect(validateImported(d)).toEqual({ ok: true });
    expect(d.cells.map((c) => [c.label, c.test, c.opsPerSec, c.latencyUs.avgUs, c.latencyUs.p50Us])).toEqual([
      ['Sets', 'SET', 1000.5, 250, null],
      ['Gets', 'GET', 10005.25, 300, null],
      ['Totals', 'SET:GET', 11005.75, 295, null],
    ]);
    expect(d.cells[0]!.workload.connections).toBeNull();
  });

  it('names arbitrary commands after themselves', () => {
    const d = json();
    const stats = d['ALL STATS']!;
    stats.Hsets = stats.Sets!;
    delete stats.Sets;
    delete stats.Gets;
    const cells = parseMemtierJson(JSON.stringify(d), options).cells;
    expect(cells.map((c) => [c.label, c.test])).toEqual([
      ['Totals', 'ALL'],
      ['Hsets', 'HSET'],
    ]);
  });

  it('refuses what is not a complete Redis-protocol memtier run', () => {
    expect(() => parseMemtierJson('{', options)).toThrow(ImportError);
    expect(() => parseMemtierJson('{"a":1}', options)).toThrow(/ALL STATS/);
    const interrupted = json();
    interrupted['run information']!['Benchmark completion status'] = 'INTERRUPTED (stopped before full run)';
    expect(() => parseMemtierJson(JSON.stringify(interrupted), options)).toThrow(/not complete/);
    const memcached = json();
    memcached.configuration!.protocol = 'memcache_text';
    expect(() => parseMemtierJson(JSON.stringify(memcached), options)).toThrow(/memcache_text/);
  });
});
