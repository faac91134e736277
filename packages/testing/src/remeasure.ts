// Results that ran again, for tests that need two runs of one setup: the same document with every
// latency divided and every ops/s multiplied by one factor. Its histograms are re-encoded and its
// latency summaries taken from them, so it passes every ingest check (Little's law holds as before)
// and its measurements are its own: no histogram of it equals the original's.
// It imports the result package by name, as a client would: run `pnpm -s build` first.
import {
  createLatencyHistogram,
  decodeCounts,
  encodeHistogram,
  type ResultV1,
  summarizeHistogram,
} from '@redis-benchdb/result';

type Measured = { latencyUs: ResultV1['cells'][number]['latencyUs']; histogram: string };

/** A copy of `r` as if measured again, `opsFactor` times as fast (1.02: 2% faster, 10: ten times). */
export function remeasured(r: ResultV1, opsFactor: number): ResultV1 {
  const out = structuredClone(r);
  for (const c of out.cells) {
    rescale(c, opsFactor);
    for (const t of c.trials) {
      rescale(t, opsFactor);
      t.opsPerSec *= opsFactor;
    }
    c.opsPerSec = {
      ...c.opsPerSec,
      median: c.opsPerSec.median * opsFactor,
      ci95Low: c.opsPerSec.ci95Low * opsFactor,
      ci95High: c.opsPerSec.ci95High * opsFactor,
    };
  }
  return out;
}

function rescale(m: Measured, opsFactor: number): void {
  const { indexes, counts } = decodeCounts(m.histogram);
  // hdr-histogram-js has valueFromIndex on every histogram; its types leave it out.
  const h = createLatencyHistogram() as ReturnType<typeof createLatencyHistogram> & {
    valueFromIndex(index: number): number;
  };
  for (let i = 0; i < indexes.length; i++) {
    const v = h.valueFromIndex(indexes[i]!);
    h.recordValueWithCount(Math.max(1, Math.round(v / opsFactor)), counts[i]!);
  }
  m.histogram = encodeHistogram(h);
  m.latencyUs = summarizeHistogram(h);
  h.destroy();
}

/**
 * A copy of `r` with histograms of its own and the same throughput: every latency shifted by
 * `1 + seed / 50` (a faster run's shorter latencies, which Little's law allows), so that fixtures
 * built from one example are not refused as copies of each other's measurements (db copies.ts).
 */
export function withOwnHistograms(r: ResultV1, seed: number): ResultV1 {
  const out = structuredClone(r);
  for (const c of out.cells) {
    rescale(c, 1 + seed / 50);
    for (const t of c.trials) rescale(t, 1 + seed / 50);
  }
  return out;
}
