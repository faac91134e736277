import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memtierTable } from '../../packages/result/test/memtier-stdout.js';
import { commandRateSampler, steadyRate, steadyServerCpuPerCall } from '../lib/bench.mjs';
import { memtierArgs, memtierPeer, readMemtierRow } from '../lib/memtier.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
// Real memtier_benchmark 2.0.0 output of one run: its JSON document and the table it printed.
const JSON_DOC = readFileSync(`${root}packages/result/test/fixtures/memtier-2.0.0-real.json`, 'utf8');
const STDOUT = readFileSync(`${root}packages/result/test/fixtures/memtier-2.0.0-real.stdout.txt`, 'utf8');

const workload = {
  target: { host: '127.0.0.1', port: 16379 },
  tests: ['set', 'get'],
  connections: 50,
  valueSize: 256,
  keyspaceSize: 100_000,
  requests: 1_000_001,
  pipelineDepth: 16,
  pipelineMode: 'window' as const,
};

describe('memtierArgs', () => {
  it('covers the key space with a seed per client, one test per run, and at least `requests` requests', () => {
    const argv = memtierArgs(workload, 'get', '/tmp/out.json');
    expect(argv.join(' ')).toBe(
      '-s 127.0.0.1 -p 16379 --protocol=redis -t 1 -c 50 --pipeline=16 -d 256 --key-minimum=1 ' +
        '--key-maximum=100000 --key-pattern=R:R --distinct-client-seed --ratio=0:1 -n 20001 ' +
        '--hide-histogram --json-out-file /tmp/out.json',
    );
    expect(memtierArgs(workload, 'set', '/x')).toContain('--ratio=1:0');
  });

  it('refuses a batch of more than one (memtier only pipelines with a window) and other targets', () => {
    expect(() => memtierArgs({ ...workload, pipelineMode: 'batch' }, 'set', '/x')).toThrow(/no batch mode/);
    expect(memtierArgs({ ...workload, pipelineMode: 'batch', pipelineDepth: 1 }, 'set', '/x')).toContain(
      '--pipeline=1',
    );
    expect(() => memtierArgs({ ...workload, target: { socket: '/tmp/s' } }, 'set', '/x')).toThrow(/TCP/);
    expect(() => memtierArgs(workload, 'lpush' as 'set', '/x')).toThrow(/set and get only/);
  });
});

describe('readMemtierRow', () => {
  it('gives the ops/s and percentiles memtier printed, and the hit ratio of GETs', () => {
    const table = memtierTable(STDOUT);
    for (const [test, type] of [
      ['set', 'Sets'],
      ['get', 'Gets'],
    ] as const) {
      const row = readMemtierRow(JSON_DOC, test);
      const printed = table[type]!;
      expect(row.test).toBe(test.toUpperCase());
      expect(row.opsPerSec).toBe(Number(printed['Ops/sec']));
      expect(row.latencyUs.p50Us).toBeCloseTo(Number(printed['p50 Latency']) * 1000, 6);
      expect(row.latencyUs.p99Us).toBeCloseTo(Number(printed['p99 Latency']) * 1000, 6);
    }
    const get = readMemtierRow(JSON_DOC, 'get');
    const hits = Number(table.Gets!['Hits/sec']);
    expect(get.hitRatio).toBeCloseTo(hits / (hits + Number(table.Gets!['Misses/sec'])), 9);
    expect(readMemtierRow(JSON_DOC, 'set').hitRatio).toBeNull();
  });

  it('says which figures are missing', () => {
    const doc = JSON.parse(JSON_DOC);
    delete doc['ALL STATS'].Gets;
    expect(() => readMemtierRow(JSON.stringify(doc), 'get')).toThrow(/no GET figures \(types: Sets/);
  });
});

describe('memtierPeer', () => {
  it('runs memtier once per test, in order, and reads each run its own JSON', async () => {
    const calls: string[][] = [];
    const run = async (_tool: string, bin: string, argv: string[]) => {
      calls.push([bin, ...argv]);
      const { writeFileSync } = await import('node:fs');
      writeFileSync(argv[argv.indexOf('--json-out-file') + 1]!, JSON_DOC);
      return '';
    };
    const rows = await memtierPeer(run, { bin: '/opt/memtier' })(workload);
    expect(rows.map((r) => r.test)).toEqual(['SET', 'GET']);
    expect(calls.map((c) => c[0])).toEqual(['/opt/memtier', '/opt/memtier']);
    expect(calls.map((c) => c.find((a) => a.startsWith('--ratio')))).toEqual(['--ratio=1:0', '--ratio=0:1']);
  });
});

describe('steadyRate', () => {
  // Every 50 ms: idle, a slow start (300 a sample), full speed (600), idle again.
  const samples: { t: number; calls: Record<string, number> }[] = [];
  let calls = 0;
  for (let i = 0; i < 100; i++) {
    calls += i < 10 || i > 80 ? 0 : i < 20 ? 300 : 600;
    samples.push({ t: i * 50, calls: { set: calls } });
  }

  it('is the rate over the middle of the period the command was served, the slow start left out', () => {
    expect(steadyRate(samples, 'set')).toBe(12_000);
    // With nothing trimmed the slow start pulls it down.
    expect(steadyRate(samples, 'set', 0)!).toBeLessThan(12_000);
  });

  it("is the first period's rate when the command is served again after a pause (a drift check's repeat)", () => {
    // The same run, then 2 s of other commands, then a repeat at a third of the speed.
    const withRepeat = samples.map((s) => ({ ...s, calls: { ...s.calls } }));
    let more = calls;
    for (let i = 100; i < 160; i++) {
      more += i < 140 ? 0 : 200;
      withRepeat.push({ t: i * 50, calls: { set: more } });
    }
    expect(steadyRate(withRepeat, 'set')).toBe(12_000);
  });

  it('is null for a command not served, or served too briefly to say', () => {
    expect(steadyRate(samples, 'get')).toBeNull();
    expect(steadyRate(samples.slice(8, 13), 'set')).toBeNull();
  });
});

describe('steadyServerCpuPerCall', () => {
  // Every 50 ms: idle, 600 SETs a sample, idle; the main thread spends 1.2 ms a sample on them
  // (2 µs a SET) but 10 ms on the first busy sample (start-up work that is no SET's cost).
  const samples: { t: number; calls: Record<string, number>; mainCpuSec: number | null }[] = [];
  let calls = 0;
  let cpu = 0;
  for (let i = 0; i < 60; i++) {
    const busy = i >= 10 && i <= 50;
    calls += busy ? 600 : 0;
    cpu += i === 10 ? 0.01 : busy ? 0.0012 : 0.00001;
    samples.push({ t: i * 50, calls: { set: calls }, mainCpuSec: cpu });
  }

  it("is the server main thread's CPU per call over the steady middle, the start-up left out", () => {
    expect(steadyServerCpuPerCall(samples, 'set')).toBeCloseTo(2, 6);
    // Over the whole period the start-up's 10 ms would count too.
    expect(steadyServerCpuPerCall(samples, 'set', 0)!).toBeGreaterThan(2.3);
  });

  it('is null where the server reports no main-thread CPU (before Redis 6.2), or the run was too short', () => {
    expect(
      steadyServerCpuPerCall(
        samples.map((x) => ({ ...x, mainCpuSec: null })),
        'set',
      ),
    ).toBeNull();
    expect(steadyServerCpuPerCall(samples.slice(8, 13), 'set')).toBeNull();
  });
});

describe('commandRateSampler against a real redis-server', () => {
  let server: { port: number; stop(): Promise<void> };
  beforeAll(async () => {
    const { startServer } = await import('@redis-benchdb/engine');
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("samples the server's own count of SETs while a client sends them", async () => {
    const sampler = commandRateSampler(server.port, { intervalMs: 20 });
    const started = performance.now();
    const total = await sendSets(server.port, 600, 100);
    const elapsedMs = performance.now() - started;
    await new Promise((r) => setTimeout(r, 60));
    const samples = sampler.stop();
    expect(samples.length).toBeGreaterThan(5);
    expect(samples.at(-1)!.calls.set).toBe(total);
    // The main thread's CPU grows while it serves them, and a SET costs it between 0.1 µs and 1 ms.
    expect(samples.at(-1)!.mainCpuSec!).toBeGreaterThan(samples[0]!.mainCpuSec!);
    const perCall = steadyServerCpuPerCall(samples, 'set');
    expect(perCall).not.toBeNull();
    expect(perCall!).toBeGreaterThan(0.1);
    expect(perCall!).toBeLessThan(1000);
    const rate = steadyRate(samples, 'set');
    // Within a factor of two of the client's own overall rate: the same work, another clock.
    const overall = (total * 1000) / elapsedMs;
    expect(rate).not.toBeNull();
    expect(rate!).toBeGreaterThan(overall / 2);
    expect(rate!).toBeLessThan(overall * 2);
  });
});

/** Send SETs on one socket for `ms`, `batch` at a time, each batch after the last one's replies; how many. */
function sendSets(port: number, ms: number, batch: number): Promise<number> {
  const one = '*3\r\n$3\r\nSET\r\n$6\r\nsample\r\n$1\r\nx\r\n';
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const end = performance.now() + ms;
    const request = one.repeat(batch);
    let sent = 0;
    let pending = 0;
    let seen = '';
    const next = () => {
      if (performance.now() >= end) {
        sock.destroy();
        resolve(sent);
        return;
      }
      sent += batch;
      pending = batch;
      sock.write(request);
    };
    sock.on('connect', next);
    sock.on('data', (d) => {
      // Every reply is +OK: count whole ones, keep a split one for the next chunk.
      seen += d.toString();
      const whole = Math.floor(seen.length / 5);
      seen = seen.slice(whole * 5);
      pending -= whole;
      if (pending === 0) next();
    });
    sock.on('error', reject);
  });
}
