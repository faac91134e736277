// Health polled back to back while a test posts bodies, with the service's main-thread CPU time
// during each poll: what tells a blocked event loop from a busy machine.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * GET /api/v1/health back to back over one keep-alive connection of its own, from a worker thread:
 * the test's own synchronous work (digests, building requests) must not count as the service's
 * latency. Around each poll it reads the run time of the service's main thread (the one that runs
 * the event loop: its thread id is the process id) from /proc/PID/task/PID/schedstat, in ns.
 *
 * A poll that waits behind work on the event loop waits while that thread runs, so the thread's CPU
 * time during the poll is the work health waited behind. A poll that is slow because the machine is
 * busy waits while that thread waits for a CPU, which adds no run time. Each sample is [when it was
 * sent (ms since the epoch), latency ms, the service's main-thread CPU ms during the poll].
 */
const POLLER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let { url, pid, localAddress } = workerData;
let stopped = false;
const samples = [];
parentPort.on('message', (m) => {
  if (m.url) ({ url, pid } = m);
  if (m.stop) stopped = true;
});
const runNs = () => {
  try {
    return Number(readFileSync('/proc/' + pid + '/task/' + pid + '/schedstat', 'latin1').split(' ')[0]);
  } catch {
    return NaN; // the service is being restarted
  }
};
const once = () => new Promise((resolve) => {
  const sentAt = performance.timeOrigin + performance.now();
  const started = performance.now();
  const ran = runNs();
  const done = () => samples.push([sentAt, performance.now() - started, (runNs() - ran) / 1e6]);
  const req = http.get(new URL('/api/v1/health', url), { agent, localAddress }, (res) => {
    res.resume().on('end', () => { done(); resolve(); });
  });
  // A service being restarted: counted as the time it was unreachable.
  req.on('error', () => { done(); setTimeout(resolve, 10); });
});
(async () => {
  while (!stopped) await once();
  agent.destroy();
  parentPort.postMessage(samples);
})();
`;

export type Sample = [sentAtMs: number, latencyMs: number, mainThreadCpuMs: number];

export interface Polled {
  url: string;
  /** The service's process id: its main thread's id too. */
  pid: number;
  /** The address to poll from (another client than the test's, e.g. 127.0.0.2). @default the system's */
  localAddress?: string;
}

/** Throws, saying why, where the main thread's run time cannot be read (not Linux). */
export function checkSchedstat(pid: number): void {
  const path = `/proc/${pid}/task/${pid}/schedstat`;
  try {
    if (Number.isFinite(Number(readFileSync(path, 'latin1').split(' ')[0]))) return;
  } catch {}
  throw new Error(`cannot read ${path}: this test needs Linux's per-thread schedstat`);
}

export function pollHealth(service: Polled) {
  checkSchedstat(service.pid);
  const worker = new Worker(POLLER, {
    eval: true,
    workerData: { url: service.url, pid: service.pid, localAddress: service.localAddress },
  });
  const done = new Promise<Sample[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    /** The service moved (restarted on another port, as another process). */
    follow: (to: Polled) => worker.postMessage({ url: to.url, pid: to.pid }),
    async stop(): Promise<Sample[]> {
      worker.postMessage({ stop: true });
      const samples = await done;
      await worker.terminate();
      return samples;
    },
  };
}

export const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** Latency p50 / p99 / max and the most main-thread CPU time one poll waited behind. */
export function describeSamples(samples: Sample[]): string {
  const ms = samples.map((x) => x[1]);
  const cpu = Math.max(0, ...samples.map((x) => x[2]).filter(Number.isFinite));
  return `${samples.length} polls, p50 ${percentile(ms, 0.5).toFixed(1)} ms, p99 ${percentile(ms, 0.99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms; main-thread CPU during one poll at most ${cpu.toFixed(1)} ms`;
}

export interface Window {
  name: string;
  from: number;
  to: number;
}

/** The worst poll while each body was in flight, worst first: latency and main-thread CPU ms. */
export function worstBodies(samples: Sample[], windows: Window[]): string {
  return windows
    .map((w) => {
      const during = samples.filter(([at, ms]) => at + ms >= w.from && at <= w.to);
      return {
        name: w.name,
        maxMs: Math.max(0, ...during.map((x) => x[1])),
        cpuMs: Math.max(0, ...during.map((x) => x[2]).filter(Number.isFinite)),
      };
    })
    .sort((a, b) => b.cpuMs - a.cpuMs)
    .slice(0, 5)
    .map((w) => `${w.name} ${w.maxMs.toFixed(0)} ms (CPU ${w.cpuMs.toFixed(0)} ms)`)
    .join('; ');
}
