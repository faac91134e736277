import * as hdr from 'hdr-histogram-js';
import type { Latency } from './generated/result-v1.js';
import { decodeCounts } from './histogram-decode.js';
import { HistogramError } from './histogram-error.js';

/** One hour in microseconds: latencies are recorded in µs and never clamped below this. */
export const HIGHEST_TRACKABLE_US = 3_600_000_000;

export type Histogram = hdr.Histogram;

/**
 * A latency histogram in microseconds, 3 significant digits, up to one hour.
 * Pure JS (not the WASM build) because histograms are created in worker threads and
 * encoded for transfer; the JS implementation needs no async initialisation.
 */
export function createLatencyHistogram(): Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_US,
    numberOfSignificantValueDigits: 3,
    bitBucketSize: 32,
    useWebAssembly: false,
  });
}

/** HdrHistogram's compressed V2 encoding, base64: the form histograms travel and are stored in. */
export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

/**
 * Decode a histogram (compressed V2, base64) into the standard latency range. Bounded: see
 * histogram-decode.ts. Throws HistogramError, with a code and the reason, for anything that is not
 * such a histogram or claims more than its range holds; callers that read stored results skip the
 * histogram then, and ingest refuses the result.
 */
export function decodeHistogram(base64: string): Histogram {
  const { geometry, indexes, counts, filledLength } = decodeCounts(base64);
  const decoded = hdr.build({
    lowestDiscernibleValue: geometry.lowestDiscernibleValue,
    highestTrackableValue: geometry.highestTrackableValue,
    numberOfSignificantValueDigits: geometry.significantDigits as 1 | 2 | 3 | 4 | 5,
    bitBucketSize: 32,
    useWebAssembly: false,
  }) as Histogram & CountsAccess;
  try {
    for (let i = 0; i < indexes.length; i++) decoded.setCountAtIndex(indexes[i]!, counts[i]!);
    // What hdr-histogram-js's own decoder does last: min, max and total from the counts.
    decoded.establishInternalTackingValues(filledLength);
    // Decoded histograms are sized to their content; re-home into the standard range so that
    // merging never fails on a value that another histogram could not hold.
    const h = createLatencyHistogram();
    try {
      h.add(decoded);
    } catch {
      h.destroy();
      throw new HistogramError(
        'HISTOGRAM_TOO_LARGE',
        `histogram refused: it holds values up to ${decoded.maxValue} µs, beyond the format's ${HIGHEST_TRACKABLE_US} µs (one hour)`,
      );
    }
    return h;
  } finally {
    decoded.destroy();
  }
}

/** The JsHistogram methods hdr-histogram-js's decoder fills a histogram with (not in its typings). */
interface CountsAccess {
  setCountAtIndex(index: number, count: number): void;
  establishInternalTackingValues(lengthToCover: number): void;
}

/** Merge encoded histograms. Histograms are merged, never averaged: percentiles come from the sum. */
export function mergeEncodedHistograms(encoded: readonly string[]): Histogram {
  const total = createLatencyHistogram();
  for (const e of encoded) {
    const h = decodeHistogram(e);
    total.add(h);
    h.destroy();
  }
  return total;
}

/**
 * The width of the bucket a value falls in, in the standard latency histogram (3 significant digits,
 * 2,048 sub-buckets): 1 µs up to 2,047 µs, then doubling with each power of two. Two figures of one
 * histogram can differ by this much and still describe the same recorded values.
 */
export function bucketWidthUs(valueUs: number): number {
  return valueUs < 2048 ? 1 : 2 ** (Math.floor(Math.log2(valueUs)) - 10);
}

/** Latency percentiles in µs; the shape is the result schema's `Latency`. */
export type LatencySummaryUs = Latency;

/** The summary of a histogram that holds no value: every figure 0. */
export function emptyLatencySummary(): LatencySummaryUs {
  return {
    count: 0,
    minUs: 0,
    meanUs: 0,
    p50Us: 0,
    p90Us: 0,
    p95Us: 0,
    p99Us: 0,
    p999Us: 0,
    p9999Us: 0,
    maxUs: 0,
  };
}

export function summarizeHistogram(h: Histogram): LatencySummaryUs {
  const count = h.totalCount;
  if (count === 0) return emptyLatencySummary();
  // getValueAtPercentile answers with the top of the value's bucket, which can lie above the
  // largest value recorded; a percentile is never above the maximum, so cap it there.
  const maxUs = h.maxValue;
  const at = (p: number) => Math.min(h.getValueAtPercentile(p), maxUs);
  return {
    count,
    minUs: h.minNonZeroValue,
    meanUs: round3(h.mean),
    p50Us: at(50),
    p90Us: at(90),
    p95Us: at(95),
    p99Us: at(99),
    p999Us: at(99.9),
    p9999Us: at(99.99),
    maxUs,
  };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
