// The building blocks of the example documents: seeded latencies drawn into histograms, trials,
// cells and environments, their figures computed by packages/result as the runner computes them.
import {
  createLatencyHistogram,
  encodeHistogram,
  environmentFingerprint,
  isUnstable,
  mergeEncodedHistograms,
  summarizeHistogram,
  summarizeTrials,
  workloadFingerprint,
} from '@redis-benchdb/result';

/** mulberry32: small, seeded, good enough to draw example latencies. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A latency histogram of `count` log-normal draws around `medianUs`, with a rare slow tail. */
function latencyHistogram(seed, count, medianUs, sigma, tailEvery = 5000, tailUs = 4000) {
  const rand = rng(seed);
  const h = createLatencyHistogram();
  for (let i = 0; i < count; i++) {
    const u1 = rand() || 1e-12;
    const g = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rand());
    let v = medianUs * Math.exp(sigma * g);
    if (i % tailEvery === tailEvery - 1) v += tailUs * rand();
    h.recordValue(Math.max(1, Math.round(v)));
  }
  const encoded = encodeHistogram(h);
  const summary = summarizeHistogram(h);
  h.destroy();
  return { encoded, summary };
}

export const round = (x, digits) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * A trial: `opsPerSec` over `durationSec`, latencies around `medianUs`. Open loop adds a response
 * time (from the intended send), a little above the service latency.
 */
export function trial(t) {
  // A cell with a request count completes exactly that many; one with a duration, what the rate allows.
  const completed = t.requested ?? Math.round(t.opsPerSec * t.durationSec);
  const lat = latencyHistogram(t.seed, completed, t.medianUs, t.sigma, t.tailEvery);
  const resp = t.openLoop
    ? latencyHistogram(t.seed + 1, completed, t.medianUs * 1.15, t.sigma * 1.2, 2000, 9000)
    : null;
  const warmupCompleted = Math.round(t.opsPerSec * t.warmupSec);
  return {
    opsPerSec: round(completed / t.durationSec, 2),
    durationSec: t.durationSec,
    completed,
    requested: t.requested,
    bytesIn: completed * t.replyBytes,
    bytesOut: completed * t.requestBytes,
    errors: t.errors ?? {},
    nils: t.nils ?? 0,
    hitRatio: t.hitRatio,
    latencyUs: lat.summary,
    histogram: lat.encoded,
    responseTimeUs: resp ? resp.summary : null,
    responseHistogram: resp ? resp.encoded : null,
    saturation: t.saturation,
    crossCheck: {
      status: 'match',
      expected: completed + warmupCompleted,
      observed: completed + warmupCompleted,
      commands: t.commands,
    },
    incomplete: false,
    error: null,
  };
}

/** A cell from its workload and trials: merged histograms, trial statistics, fingerprint. */
export function cell(label, test, workload, trials) {
  const merged = mergeEncodedHistograms(trials.map((t) => t.histogram));
  const openLoop = trials[0].responseHistogram !== null;
  const mergedResp = openLoop ? mergeEncodedHistograms(trials.map((t) => t.responseHistogram)) : null;
  const stats = summarizeTrials(trials.map((t) => t.opsPerSec));
  const sum = (f) => trials.reduce((a, t) => a + f(t), 0);
  const errors = {};
  for (const t of trials) for (const [k, v] of Object.entries(t.errors)) errors[k] = (errors[k] ?? 0) + v;
  const completed = sum((t) => t.completed);
  const nils = sum((t) => t.nils);
  const out = {
    label,
    test,
    workloadFingerprint: workloadFingerprint(workload),
    workload,
    trialCount: trials.length,
    opsPerSec: { median: stats.median, ci95Low: stats.ci95Low, ci95High: stats.ci95High, cv: stats.cv },
    unstable: isUnstable(stats.cv),
    trials,
    latencyUs: summarizeHistogram(merged),
    histogram: encodeHistogram(merged),
    responseTimeUs: mergedResp ? summarizeHistogram(mergedResp) : null,
    responseHistogram: mergedResp ? encodeHistogram(mergedResp) : null,
    completed,
    requested: trials[0].requested === null ? null : sum((t) => t.requested),
    bytesIn: sum((t) => t.bytesIn),
    bytesOut: sum((t) => t.bytesOut),
    errors,
    hitRatio: trials[0].hitRatio === null ? null : round((completed - nils) / completed, 6),
    saturation: trials[Math.floor(trials.length / 2)].saturation,
    crossCheck: {
      status: 'match',
      expected: sum((t) => t.crossCheck.expected),
      observed: sum((t) => t.crossCheck.observed),
      commands: trials[0].crossCheck.commands,
    },
    incomplete: false,
    error: null,
  };
  merged.destroy();
  mergedResp?.destroy();
  return out;
}

export function environment(client, server, link, unknown) {
  return { fingerprint: environmentFingerprint({ client, server, link }), client, server, link, unknown };
}
