import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { estimateClientMemory } from '@redis-benchdb/engine';
import { DEFAULT_CELL_OPTIONS } from '@redis-benchdb/engine/options';
import { DEFAULT_MEMORY_BUDGET_BYTES } from '@redis-benchdb/runner';
import { afterAll, describe, expect, it } from 'vitest';
import { client, describeResult, runCli, spawnCli, testServer } from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

// Issue 40 item 4: the runner has a memory budget (1 GiB unless --memory-budget), and a plan whose
// buffers would not fit is refused before any connection, with the figure and the flag. Before it,
// -d 64MiB at the default 50 connections peaked at 3.45 GB, and -d 512MiB passed 6 GB until killed.

cliFileHooks();

/** A TCP listener that counts who connects: the runner must not, when it refuses. */
async function listener(): Promise<{ port: number; connections: () => number; server: Server }> {
  let n = 0;
  const server = createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as { port: number }).port, connections: () => n, server };
}

const opened: Server[] = [];
afterAll(() => {
  for (const s of opened) s.close();
});

/** The highest VmHWM (peak RSS) /proc shows for `pid` until it ends, in bytes. */
function peakRss(pid: number): () => number {
  let peak = 0;
  const read = () => {
    try {
      const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (kb) peak = Math.max(peak, Number(kb) * 1024);
    } catch {
      // ended: the last reading stands
    }
  };
  const timer = setInterval(read, 10);
  read();
  return () => {
    clearInterval(timer);
    return peak;
  };
}

describe('the memory budget', () => {
  for (const [flags, figure] of [
    [['-d', '512MiB'], '26 GiB'],
    [['-d', '64MiB'], '3.5 GiB'],
  ] as const)
    it(`refuses ${flags.join(' ')} at 50 connections before connecting, with the figure and the flag`, async () => {
      const l = await listener();
      opened.push(l.server);
      const r = await runCli(['run', '-p', String(l.port), '-t', 'set', ...flags, '-n', '100', '--no-store']);
      expect(r.code, describeResult(r)).toBe(2);
      expect(r.stderr).toContain(`SET would need about ${figure} of memory in redis-benchdb (50 connections`);
      expect(r.stderr).toMatch(
        /over its budget of 1\.0 GiB\. Lower -d, -c or -P, or allow it with --memory-budget \d+GiB/,
      );
      expect(l.connections()).toBe(0);
    });

  it('runs a plan within the budget, and its peak RSS is within the estimate', async () => {
    const server = await testServer();
    const args = ['-t', 'set', '-d', '8MiB', '-c', '8', '-P', '2', '-n', '64'];
    const cli = spawnCli(['run', '-p', String(server.port), ...args, '--no-store', '-q']);
    const stop = peakRss(cli.child.pid!);
    const r = await cli.done;
    const peak = stop();
    expect(r.code, describeResult(r)).toBe(0);
    const estimate = estimateClientMemory({
      ...DEFAULT_CELL_OPTIONS,
      test: 'SET',
      valueSizeBytes: 8 * 1024 * 1024,
      connections: 8,
      pipelineDepth: 2,
    }).bytes;
    expect(estimate).toBeLessThan(DEFAULT_MEMORY_BUDGET_BYTES);
    // 16 requests of 8 MiB in flight: the estimate must cover them, and not be loose by more than half.
    expect(peak).toBeGreaterThan(128 * 1024 * 1024);
    expect(peak).toBeLessThanOrEqual(estimate);
    expect(peak).toBeGreaterThan(estimate / 2);
    process.stderr.write(
      `peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB, estimate ${(estimate / 2 ** 20).toFixed(0)} MiB\n`,
    );
  });

  it("refuses keys that the server's maxmemory cannot hold, says how much, and writes nothing", async () => {
    const server = await testServer({ config: ['maxmemory 32mb'] });
    const flags = '-t get --preload -r 1000000 -d 100 -n 1000 --no-store'.split(' ');
    const r = await runCli(['run', '-p', String(server.port), ...flags]);
    expect(r.code, describeResult(r)).toBe(2);
    expect(r.stderr).toMatch(/server memory: GET writes up to 1,000,000 keys, about 198 MiB more than the/);
    expect(r.stderr).toMatch(/more than its maxmemory \(32 MiB\).*run anyway with --server-memory-ok/);
    const c = await client(server);
    expect(await c.dbsize()).toBe(0);
  });

  it('holds a run group to it too: each launched server to its maxmemory, before any key is written', async () => {
    const variants = ['hz 10', 'hz 11'].flatMap((v) => ['--server-config-variant', v]);
    const flags = '-t get --preload -r 1000000 -d 100 -n 1000 --trials 1 --no-store'.split(' ');
    const r = await runCli([
      'run',
      '--server-bin',
      'redis-server',
      '--server-config',
      'maxmemory 32mb',
      ...variants,
      ...flags,
    ]);
    expect(r.code, describeResult(r)).toBe(2);
    expect(r.stderr).toMatch(
      /server memory: GET writes up to 1,000,000 keys on each of the 2 servers, about 198 MiB/,
    );
    expect(r.stderr).toMatch(/more than its maxmemory \(32 MiB\).*run anyway with --server-memory-ok/);
    // No load began: no cell's progress, and the launched servers were stopped (launch.test.ts checks pids).
    expect(r.stderr).not.toMatch(/GET .*ops\/s/);
  });
});
