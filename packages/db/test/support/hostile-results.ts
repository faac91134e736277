// Signed results that the issue-11 corpus (rows 1-3) sent to the service, built with the real runner
// code paths (histograms, summaries, signing). Import the built packages: run `pnpm -s build` first.
import {
  createLatencyHistogram,
  encodeHistogram,
  type ResultV1,
  summarizeHistogram,
  workloadFingerprint,
} from '@redis-benchdb/result';
import {
  body,
  craftHistogram,
  deflateBombHistogram,
  emptyRunHistogram,
  suiteRun,
} from '@redis-benchdb/testing';

export {
  craftHistogram,
  deflateBombHistogram,
  emptyRunHistogram,
} from '@redis-benchdb/testing';

/**
 * Row 1: the example result with cell 0's histogram replaced by a run of 2^runLog2 empty buckets.
 * With `afterRealCounts`, the run follows a count equal to the cell's latencyUs.count, so the old
 * count check passed (the 2^29 variant was stored).
 */
export function emptyRunResult(runLog2: number, afterRealCounts = false): ResultV1 {
  const r = suiteRun();
  const c = r.cells[0]!;
  c.histogram = emptyRunHistogram(runLog2, afterRealCounts ? [0, c.latencyUs.count] : []);
  return r;
}

/** Row 2: cell 0's histogram a deflate bomb of `zeroBytes` zero bytes (1 GiB ~ a 1.4 MB body). */
export function deflateBombResult(zeroBytes: number): ResultV1 {
  const r = suiteRun();
  r.cells[0]!.histogram = deflateBombHistogram(zeroBytes);
  return r;
}

/**
 * Row 3: 49,000,000 ops/s on 1 connection at pipeline 1, every latency ~25 µs, with minUs 0. Its
 * histograms are real and their counts agree with the summaries; only minUs is stated as 0, which
 * switched Little's law off (1 / 25 µs = 40,000 ops/s).
 */
export function littleLawDodgeResult(): ResultV1 {
  const r = suiteRun();
  r.cells = [r.cells[0]!];
  const c = r.cells[0]!;
  c.workload.connections = 1;
  c.workload.pipelineDepth = 1;
  c.label = `${c.test} c1`;
  c.workloadFingerprint = workloadFingerprint(c.workload);
  const h = createLatencyHistogram();
  for (let i = 0; i < 1000; i++) h.recordValue(24 + (i % 3));
  const histogram = encodeHistogram(h);
  const latencyUs = { ...summarizeHistogram(h), minUs: 0 };
  for (const t of c.trials) Object.assign(t, { opsPerSec: 49e6, histogram, latencyUs: { ...latencyUs } });
  const all = createLatencyHistogram();
  for (let i = 0; i < c.trials.length; i++) all.add(h);
  Object.assign(c, {
    opsPerSec: { median: 49e6, ci95Low: 49e6, ci95High: 49e6, cv: 0 },
    histogram: encodeHistogram(all),
    latencyUs: { ...summarizeHistogram(all), minUs: 0 },
  });
  r.warnings = r.warnings.filter((w) => w.cell === null);
  return r;
}

/**
 * Many histograms, each within its own bounds, that together inflate past what one result may:
 * `trials` trials, each histogram a count of 2^28 in every one of the 23,552 buckets (~118 KB
 * inflated from ~0.5 KB).
 */
export function manyHistogramsResult(trials: number): ResultV1 {
  const r = suiteRun();
  const c = r.cells[0]!;
  const histogram = craftHistogram({ words: Array.from({ length: 23_552 }, () => 2 ** 28) });
  c.trials = Array.from({ length: trials }, () => ({ ...c.trials[0]!, histogram }));
  c.trialCount = trials;
  return r;
}

/** A result as the body a client posts (signed with the shared test key). */
export { body };
