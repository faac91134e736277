import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkSubmission, IngestError } from '@redis-benchdb/db';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  describeResult,
  readEnvelope,
  removeTempDirs,
  spawnCli,
  tempDir,
} from './helpers/cli.js';
import { type HostileRule, HostileServer } from './helpers/hostile-server.js';

/**
 * The runner against a server that misbehaves as no real server does (helpers/hostile-server.ts):
 * whatever it sends, the run ends with an error naming the server and the limit, the runner's
 * memory stays bounded, and the process exits even though the server keeps its sockets open.
 */

assertBuilt();

/**
 * The most resident memory a run may reach against a hostile server. An idle runner peaks near
 * 130 MiB (Node, the engine, a worker thread); the limits (docs/RESULT-FORMAT.md) let one reply
 * hold at most 16 MiB on the control connection and 64 KiB of header on a measured one.
 */
const PEAK_RSS_MIB = 400;

const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});
afterAll(removeTempDirs);

function kib(field: string, status: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) : 0;
}

/**
 * Run the CLI against a hostile server; its peak RSS (VmHWM) is read while it runs, and a runner
 * past the bound is killed there, so a failing case costs the shared machine no more than that.
 */
async function runAgainst(rules: HostileRule[], args: string[]) {
  const server = await HostileServer.start(rules);
  servers.push(server);
  const cli = spawnCli(['run', '-p', String(server.port), '--no-store', '--timeout', '10', ...args]);
  let peakKib = 0;
  let killed = false;
  const poll = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${cli.child.pid}/status`, 'utf8');
      peakKib = Math.max(peakKib, kib('VmHWM', status));
      if (peakKib > PEAK_RSS_MIB * 1024 * 1.5 && !killed) {
        killed = true;
        cli.child.kill('SIGKILL');
      }
    } catch {
      // exited
    }
  }, 20);
  const r = await cli.done;
  clearInterval(poll);
  return { ...r, peakMib: Math.round(peakKib / 1024), killed, server };
}

describe('a hostile server on the measured connections', () => {
  it.each([
    ['deep-nesting', /nested deeper than 64 levels/],
    ['endless-line', /line longer than 65,536 bytes/],
    ['huge-bulk', /bulk string of 1,000,000,000,000,000 bytes.*more than 536,870,912/],
  ] as const)('%s: the cell ends with the limit named, memory bounded, keys removed', async (send, limit) => {
    const r = await runAgainst(
      [{ command: 'GET', connection: 'load', send }],
      ['-t', 'get', '-n', '2000', '-c', '2'],
    );
    process.stderr.write(`${send}: exit ${r.code} after ${r.ms} ms, peak RSS ${r.peakMib} MiB\n`);
    expect(r.killed, `peak RSS ${r.peakMib} MiB`).toBe(false);
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${r.server.port}`));
    expect(r.stderr).toMatch(limit);
    expect(r.stderr).not.toMatch(/unexpected failure|Please report/);
    // The control connection still works, so the run removed its keys there.
    expect(r.stderr).toMatch(/removed \d+ keys? under rbdb:/);
    expect(r.server.written.size).toBeGreaterThan(0);
    expect([...r.server.keys]).toEqual([]);
    expect(r.peakMib).toBeLessThan(PEAK_RSS_MIB);
  });
});

describe('a hostile server on the control connection', () => {
  // At PING the run has written nothing; by INFO it has marked its prefix, and a new connection removes that.
  it.each([
    ['PING', 'deep-nesting', /nested deeper than 64 levels/],
    ['PING', 'endless-line', /line longer than 65,536 bytes/],
    ['INFO', 'huge-bulk', /bulk string of 1,000,000,000,000,000 bytes.*more than 16,777,216/],
    ['INFO', 'deep-nesting', /nested deeper than 64 levels/],
  ] as const)(
    '%s answered with %s: a clear error, memory bounded, the process exits',
    async (command, send, limit) => {
      const r = await runAgainst([{ command, send }], ['-t', 'ping_mbulk', '-n', '2000', '-c', '2']);
      process.stderr.write(
        `${command} ${send}: exit ${r.code} after ${r.ms} ms, peak RSS ${r.peakMib} MiB\n`,
      );
      expect(r.killed, `peak RSS ${r.peakMib} MiB`).toBe(false);
      expect(r.code, describeResult(r)).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${r.server.port}`));
      expect(r.stderr).toMatch(limit);
      expect(r.stderr).not.toMatch(/unexpected failure|Please report|RangeError/);
      expect(r.peakMib).toBeLessThan(PEAK_RSS_MIB);
      if (command === 'INFO') {
        expect(r.server.written.size).toBeGreaterThan(0);
        expect(r.stderr).toMatch(/removed \d+ keys? under rbdb:/);
      }
      expect([...r.server.keys]).toEqual([]);
    },
  );

  it('INFO of the wrong type: a clear error, and the process exits while the server holds the socket', async () => {
    const r = await runAgainst(
      [{ command: 'INFO', send: 'integer' }],
      ['-t', 'ping_mbulk', '-n', '2000', '-c', '2'],
    );
    process.stderr.write(`INFO integer: exit ${r.code} after ${r.ms} ms\n`);
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stderr).toMatch(/127\.0\.0\.1:\d+ answered INFO with an integer/);
    expect(r.stderr).not.toMatch(/unexpected failure|TypeError/);
    expect(r.server.written.size).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/removed \d+ keys? under rbdb:/);
    expect([...r.server.keys]).toEqual([]);
  });
});

describe('a server that answers with replies of the wrong type', () => {
  it('GET answered with integers: WRONG_REPLIES, exit 1, and ingest refuses the result', async () => {
    const file = path.join(await tempDir(), 'wrong.json');
    const r = await runAgainst(
      [{ command: 'GET', connection: 'load', send: 'integer' }],
      ['-t', 'get', '-n', '3000', '-c', '2', '--out', file],
    );
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stderr).toMatch(
      /warning WRONG_REPLIES \(GET\): .*3,\d{3} replies to GET were an integer, which GET never returns/,
    );
    expect(r.stderr).toMatch(/error: the server's replies were wrong in GET \(warning WRONG_REPLIES\)/);
    const { payload } = await readEnvelope(file);
    expect(payload.warnings.filter((w) => w.code === 'WRONG_REPLIES').map((w) => w.cell)).toEqual(['GET']);
    let refused: unknown = null;
    try {
      checkSubmission(readFileSync(file, 'utf8'));
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(IngestError);
    expect((refused as IngestError).code).toBe('WRONG_REPLIES');
  });
});
