// One cell of a synthetic result: three trials with plausible noise, each with a real encoded HDR
// histogram, and the cell's merged histogram and figures, shaped like what the runner writes.

import { coefficientOfVariation, encodeHistogram, median } from '@redis-benchdb/result';
import { encodePoints, latencyPoints, summarizePoints } from './latency.mjs';

// ops/s of a single-threaded Redis 7.0 at pipeline 1, 50 connections, on the reference machine.
const BASE_OPS = {
  SET: 115e3,
  GET: 120e3,
  PING_INLINE: 125e3,
  PING_MBULK: 128e3,
  INCR: 120e3,
  LPUSH: 118e3,
  RPUSH: 118e3,
  LPOP: 117e3,
  RPOP: 117e3,
  SADD: 118e3,
  HSET: 115e3,
  SPOP: 118e3,
  ZADD: 108e3,
  ZPOPMIN: 114e3,
  LRANGE_100: 55e3,
  LRANGE_300: 22e3,
  LRANGE_500: 14e3,
  LRANGE_600: 11.5e3,
  MSET: 38e3,
  XADD: 98e3,
};
const PIPELINE = { 1: 1, 4: 2.05, 16: 3.3, 64: 4.9, 256: 6 };
const VALUE_SIZE = { 16: 1.03, 64: 1.02, 256: 1, 1024: 0.95, 4096: 0.8, 16384: 0.5, 65536: 0.2 };
// Requests and replies in bytes, for bytesIn/bytesOut (RESP framing included, roughly).
const WIRE = { SET: (v) => [v + 45, 5], GET: (v) => [40, v + 9], MSET: (v) => [10 * (v + 40), 5] };
const LRANGE = /^LRANGE_(\d+)$/;

/** Server ceiling, client ceiling and link bound for a workload on a setup, in ops/s. */
function capacity(w, setup) {
  const { connections: conns, pipelineDepth: p } = w;
  const size = w.valueSizeBytes.min;
  let server = BASE_OPS[w.test] * (PIPELINE[p] ?? 1) * (VALUE_SIZE[size] ?? 1) * setup.serverSpeed;
  if (w.keyspaceSize < 1e6 && w.test === 'GET') server *= 1.02 + 0.06 / Math.log10(w.keyspaceSize + 10);
  if (conns >= 200) server *= conns >= 1000 ? 0.88 : 0.97;
  // Extra serving threads lift the ceiling where there are enough connections to spread.
  if (setup.serverThreads > 1 && conns >= 10) server *= 1 + 0.55 * (setup.serverThreads - 1) ** 0.8;
  const client = 260e3 * (PIPELINE[p] ?? 1) ** 1.15 * setup.clientSpeed * (w.test === 'MSET' ? 0.4 : 1);
  // Each connection waits a round trip per batch: conns × p in flight over (rtt + service time).
  const link = (conns * p * 1e6) / (setup.rttUs + 6 * p);
  return { server, client, link };
}

/** The trials and the cell, as a result.v1 Cell; `h` is a reusable histogram. */
export function makeCell(r, def, setup, h) {
  const w = def.workload;
  const cap = capacity(w, setup);
  const clientBound = cap.client < cap.server;
  // A soft minimum: near the crossover both limits are felt, as on a real machine.
  const expected = (Math.min(cap.server, cap.client) ** -3 + cap.link ** -3) ** (-1 / 3) * setup.runFactor;
  const sigma = setup.jitter;
  const slowTrial = r.next() < setup.jitter * 1.5 ? r.int(0, def.trials - 1) : -1;
  const trials = [];
  const points = [];
  for (let t = 0; t < def.trials; t++) {
    let ops = expected * (1 + sigma * r.normal());
    if (t === slowTrial) ops *= 0.65 + 0.2 * r.next(); // a neighbour, a GC pause, a migration
    const durationSec = Math.round((w.durationSec + r.next() * 0.002) * 1e6) / 1e6;
    const completed = Math.max(1000, Math.round(Math.max(ops, 100) * durationSec));
    const inFlight = w.connections * w.pipelineDepth;
    const pts = latencyPoints({
      count: completed,
      meanUs: (inFlight * 1e6 * durationSec) / completed,
      sigma: setup.latencySigma * (0.9 + 0.2 * r.next()),
      tailFraction: setup.tailFraction,
      tailSpan: setup.tailSpan * (0.7 + 0.6 * r.next()),
    });
    points.push(pts);
    const histogram = encodePoints(h, encodeHistogram, [pts]);
    trials.push(
      trial(r, w, setup, clientBound, durationSec, completed, summarizePoints(h, [pts]), histogram),
    );
  }
  const histogram = encodePoints(h, encodeHistogram, points);
  const latencyUs = summarizePoints(h, points);
  const opsList = trials.map((t) => t.opsPerSec);
  const cv = coefficientOfVariation(opsList);
  const mid = trials.find((t) => t.opsPerSec === median(opsList)) ?? trials[0];
  const sum = (k) => trials.reduce((s, t) => s + t[k], 0);
  return {
    label: def.label,
    test: w.test,
    workloadFingerprint: def.fingerprint,
    workload: w,
    trialCount: trials.length,
    // With 3 trials, the bootstrap 95% CI of the median is [min, max] (the runner's 10,000 resamples
    // land there every time): computed directly, which keeps 10,000 results fast.
    opsPerSec: { median: median(opsList), ci95Low: Math.min(...opsList), ci95High: Math.max(...opsList), cv },
    unstable: cv !== null && cv > 0.1,
    trials,
    latencyUs,
    histogram,
    responseTimeUs: null,
    responseHistogram: null,
    completed: sum('completed'),
    requested: null,
    bytesIn: sum('bytesIn'),
    bytesOut: sum('bytesOut'),
    errors: {},
    hitRatio: mid.hitRatio,
    saturation: mid.saturation,
    crossCheck: {
      ...mid.crossCheck,
      expected: trials.reduce((s, t) => s + t.crossCheck.expected, 0),
      observed:
        mid.crossCheck.observed === null ? null : trials.reduce((s, t) => s + t.crossCheck.observed, 0),
    },
    incomplete: false,
    error: null,
  };
}

function trial(r, w, setup, clientBound, durationSec, completed, latencyUs, histogram) {
  const lr = LRANGE.exec(w.test);
  const [out, inn] = lr ? [50, Number(lr[1]) * 12] : (WIRE[w.test]?.(w.valueSizeBytes.min) ?? [35, 8]);
  const warmup = Math.round((completed / durationSec) * w.warmupSec);
  const serverMain = clientBound ? 0.55 + 0.3 * r.next() : 0.93 + 0.06 * r.next();
  const command = w.test.startsWith('PING') ? 'ping' : lr ? 'lrange' : w.test.toLowerCase();
  return {
    opsPerSec: Math.round((completed / durationSec) * 100) / 100,
    durationSec,
    completed,
    requested: null,
    bytesIn: completed * inn,
    bytesOut: completed * out,
    errors: {},
    nils: 0,
    hitRatio: w.test === 'GET' ? 1 : null,
    latencyUs,
    histogram,
    responseTimeUs: null,
    responseHistogram: null,
    saturation: {
      clientEventLoopUtilization: [
        Math.round((clientBound ? 0.97 + 0.03 * r.next() : 0.5 + 0.4 * r.next()) * 100) / 100,
      ],
      serverCpuShare: Math.round((serverMain + 0.05 * (setup.serverThreads - 1)) * 1000) / 1000,
      serverMainThreadCpuShare: Math.round(serverMain * 1000) / 1000,
      achievedRateRatio: null,
      limitedBy: clientBound ? 'client' : 'server',
      clientBound,
    },
    // Dragonfly's commandstats count differently: the runner says so rather than compare.
    crossCheck: setup.crossCheck
      ? { status: 'match', expected: completed + warmup, observed: completed + warmup, commands: [command] }
      : {
          status: 'unavailable',
          expected: completed + warmup,
          observed: null,
          commands: [command],
          note: 'INFO commandstats did not list the command',
        },
    incomplete: false,
    error: null,
  };
}
