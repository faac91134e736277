import { describe, expect, it } from 'vitest';
import {
  createLatencyHistogram,
  decodeHistogram,
  encodeHistogram,
  mergeEncodedHistograms,
  summarizeHistogram,
} from '../src/index.js';

describe('latency summaries', () => {
  it('never put a percentile above the largest value recorded', () => {
    // Values chosen to fall inside HDR buckets whose top lies above them (3 significant digits).
    for (const max of [3724, 1_000_001, 65_537, 123_457]) {
      const h = createLatencyHistogram();
      for (let i = 1; i <= 10_000; i++) h.recordValue(Math.ceil((i / 10_000) * max));
      const s = summarizeHistogram(h);
      const ordered = [s.p50Us, s.p90Us, s.p95Us, s.p99Us, s.p999Us, s.p9999Us, s.maxUs];
      expect(ordered).toEqual([...ordered].sort((a, b) => a - b));
      expect(s.p9999Us).toBeLessThanOrEqual(s.maxUs);
      h.destroy();
    }
  });

  it('round-trips through the encoding and merges by summing counts', () => {
    const a = createLatencyHistogram();
    const b = createLatencyHistogram();
    for (let i = 0; i < 1000; i++) a.recordValue(100 + i);
    for (let i = 0; i < 3000; i++) b.recordValue(5000 + i);
    expect(summarizeHistogram(decodeHistogram(encodeHistogram(a))).count).toBe(1000);
    const merged = summarizeHistogram(mergeEncodedHistograms([encodeHistogram(a), encodeHistogram(b)]));
    expect(merged.count).toBe(4000);
    expect(merged.minUs).toBe(100);
    expect(merged.p50Us).toBeGreaterThanOrEqual(5000);
  });
});
