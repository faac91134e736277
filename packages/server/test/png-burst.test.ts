// Issue 30 item 9 on the real publishing service: bursts of 200 concurrent requests for chart PNGs
// not drawn yet. Every request gets an answer (the PNG, or 503 BUSY with retry-after), none is cut
// off, and the service's peak RSS stays within the bound docs/DEPLOY.md states. Main's code closed
// 1-27 sockets per burst at about 10.2 s with no reply, and peaked at 553 MiB.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { request, spawnService, tempDbPath } from './fixtures.js';

const BUILD = fileURLToPath(new URL('heavy-charts-build.mjs', import.meta.url));
/** The bound docs/DEPLOY.md states for the service's peak RSS under these bursts. */
const PEAK_RSS_MIB = 400;
const BURSTS = 3;
const PER_BURST = 200;

const dir = mkdtempSync(join(tmpdir(), 'rbdb-png-burst-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Peak resident memory of a process so far, MiB (Linux VmHWM). */
function peakRssMib(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
  if (!m) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

function get(url: string, agent: http.Agent) {
  const started = performance.now();
  return new Promise<{ status: number | string; retryAfter?: string; ms: number }>((resolve) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume().on('end', () =>
        resolve({
          status: res.statusCode!,
          retryAfter: res.headers['retry-after'],
          ms: performance.now() - started,
        }),
      );
      res.on('error', (e: NodeJS.ErrnoException) =>
        resolve({ status: e.code ?? 'error', ms: performance.now() - started }),
      );
    });
    req.on('error', (e: NodeJS.ErrnoException) =>
      resolve({ status: e.code ?? 'error', ms: performance.now() - started }),
    );
  });
}

describe('chart PNGs on request, in bursts', () => {
  it(`${BURSTS} bursts of ${PER_BURST}: every request answered (200, or 503 with retry-after), peak RSS under ${PEAK_RSS_MIB} MiB`, async () => {
    const service = await spawnService(
      tempDbPath(),
      ['--site-dir', join(dir, 'site'), '--site-build', `node ${BUILD}`, '--site-debounce', '0'],
      { env: { CHARTS: String(BURSTS * PER_BURST) } },
    );
    for (;;) {
      const h = await request(`${service.url}/api/v1/health`);
      const site = h.json.site as { state: string } | undefined;
      if (site?.state === 'ready') break;
      expect(site?.state).not.toBe('failed');
      await new Promise((r) => setTimeout(r, 200));
    }
    const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
    const statuses: Record<string, number> = {};
    let slowestMs = 0;
    for (let b = 0; b < BURSTS; b++) {
      const replies = await Promise.all(
        Array.from({ length: PER_BURST }, (_, i) =>
          get(`${service.url}/charts/c${b * PER_BURST + i}.png`, agent),
        ),
      );
      for (const r of replies) {
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        slowestMs = Math.max(slowestMs, r.ms);
        if (r.status === 503) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      }
    }
    agent.destroy();
    const peak = peakRssMib(service.child.pid!);
    console.log(
      `PNG bursts: ${JSON.stringify(statuses)}, slowest answer ${(slowestMs / 1000).toFixed(1)} s, peak RSS ${peak.toFixed(0)} MiB`,
    );
    // Only answers: no socket closed without one.
    expect(Object.keys(statuses).filter((s) => s !== '200' && s !== '503')).toEqual([]);
    expect(statuses['200']).toBeGreaterThan(0);
    expect(peak).toBeLessThan(PEAK_RSS_MIB);
    service.child.kill('SIGTERM');
    await service.exited;
  });
});
