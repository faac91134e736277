import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMemtierJson, sha256Of, validateImported } from '../src/index.js';
import { memtierTable, printedMsToUs } from './memtier-stdout.js';

// Real output of memtier_benchmark 2.0.0 against a throwaway redis-server 7.0.15 (see
// fixtures/README.md): the --json-out-file document and the stdout of the same run. The expected
// figures are read from the table memtier printed, never copied into this file.
const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');
const json = fixture('memtier-2.0.0-real.json');
const printed = memtierTable(fixture('memtier-2.0.0-real.stdout.txt'));
const options = { title: 'memtier-2.0.0-real.json', importedAt: '2026-11-21T13:39:00Z' };

describe('parseMemtierJson on real memtier_benchmark 2.0.0 output', () => {
  const doc = parseMemtierJson(json, options);

  it('reads the stdout table it is checked against', () => {
    expect(Object.keys(printed)).toEqual(['Sets', 'Gets', 'Waits', 'Totals']);
    expect(printed.Totals!['p99.9 Latency']).toMatch(/^\d+\.\d{5}$/);
  });

  it('validates, and has a cell for each type that ran (no WAIT was sent)', () => {
    expect(validateImported(doc)).toEqual({ ok: true });
    expect(doc.source).toMatchObject({ kind: 'memtier-json', contentSha256: sha256Of(json) });
    expect(printed.Waits!['Ops/sec']).toBe('0.00');
    expect(doc.cells.map((c) => [c.label, c.test])).toEqual([
      ['Sets', 'SET'],
      ['Gets', 'GET'],
      ['Totals', 'SET:GET 1:1'],
    ]);
  });

  it('gives the Ops/sec memtier printed for Sets, Gets and Totals', () => {
    for (const c of doc.cells) expect(c.opsPerSec, c.label).toBe(Number(printed[c.label]!['Ops/sec']));
  });

  it('gives the p50, p99 and p99.9 latencies memtier printed, in µs', () => {
    for (const c of doc.cells) {
      const row = printed[c.label]!;
      expect(c.latencyUs.p50Us, c.label).toBe(printedMsToUs(row['p50 Latency']!));
      expect(c.latencyUs.p99Us, c.label).toBe(printedMsToUs(row['p99 Latency']!));
      expect(c.latencyUs.p999Us, c.label).toBe(printedMsToUs(row['p99.9 Latency']!));
    }
  });

  it('gives the average latency memtier printed, to the 1 µs its JSON keeps (%.3f ms)', () => {
    // stdout prints "0.17924" (%.5f ms); the JSON document has "Average Latency": 0.179.
    for (const c of doc.cells) {
      const stdoutUs = printedMsToUs(printed[c.label]!['Avg. Latency']!);
      expect(Math.abs(c.latencyUs.avgUs! - stdoutUs), c.label).toBeLessThanOrEqual(0.5);
    }
  });

  it('reads the workload the configuration block states (-t 2 -c 5 -n 20000 --ratio=1:1 -d 64)', () => {
    expect(doc.cells[0]!.workload).toEqual({
      connections: 10,
      pipelineDepth: 1,
      valueSizeBytes: 64,
      keyspaceSize: 10000001,
      requests: 200000,
      threads: 2,
      ratio: '1:1',
      keepAlive: true,
      durationSec: null,
    });
  });
});
