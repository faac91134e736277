import { createLatencyHistogram, type Histogram } from '@redis-benchdb/result';

const FAST_LIMIT_US = 1 << 16;

/**
 * Records latencies in µs. Below 65 ms a flat array of counts takes the value exactly (a store,
 * a few ns); HdrHistogram's recordValue costs ~60 ns, which at a million replies a second is 6%
 * of the client's core. flush() moves the counts into the histogram, losing nothing: µs are
 * finer than the histogram's three significant digits.
 */
export class LatencyRecorder {
  private readonly counts = new Float64Array(FAST_LIMIT_US);
  private readonly histogram: Histogram = createLatencyHistogram();
  count = 0;

  /** Record a latency given in milliseconds (performance.now() units). */
  recordMs(ms: number): void {
    const us = Math.round(ms * 1000);
    this.count++;
    if (us < FAST_LIMIT_US && us >= 0) this.counts[us]!++;
    else this.histogram.recordValue(Math.max(0, us));
  }

  /** The histogram of everything recorded so far. */
  flush(): Histogram {
    const counts = this.counts;
    for (let v = 0; v < FAST_LIMIT_US; v++) {
      const c = counts[v]!;
      if (c > 0) {
        this.histogram.recordValueWithCount(v, c);
        counts[v] = 0;
      }
    }
    return this.histogram;
  }
}
