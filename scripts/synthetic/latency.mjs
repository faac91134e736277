// Plausible latency distributions as real, encoded HDR histograms. A distribution is a list of
// [valueUs, count] points (a log-normal body and a decaying tail, ~90 points), recorded with
// recordValueWithCount: a trial of millions of requests costs ~100 calls, not millions.

const BODY_Z = Array.from({ length: 61 }, (_, i) => -3 + i * 0.1);
const TAIL_POINTS = 24;

/** Standard normal CDF (Abramowitz-Stegun 7.1.26 erf, |error| < 1.5e-7). */
function phi(z) {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-x * x);
  return z >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/**
 * `count` latencies whose mean is near `meanUs` (Little's law gives it: in-flight / ops/s), with
 * a log-normal body of width `sigma` and `tailFraction` of them spread up to `tailSpan` x the median.
 */
export function latencyPoints({ count, meanUs, sigma, tailFraction, tailSpan }) {
  const medianUs = meanUs / (Math.exp((sigma * sigma) / 2) * (1 + tailFraction * tailSpan * 0.3));
  const points = [];
  const bodyCount = count * (1 - tailFraction);
  for (const z of BODY_Z) {
    const c = Math.round(bodyCount * (phi(z + 0.05) - phi(z - 0.05)));
    points.push([Math.max(1, Math.round(medianUs * Math.exp(sigma * z))), c]);
  }
  // The tail: log-spaced from the body's end to tailSpan x median, each point 0.7x the last.
  const from = medianUs * Math.exp(3 * sigma);
  const to = Math.max(from * 1.5, medianUs * tailSpan);
  const tailCount = count * tailFraction;
  const norm = (1 - 0.7 ** TAIL_POINTS) / 0.3;
  for (let i = 0; i < TAIL_POINTS; i++) {
    const c = Math.round((tailCount * 0.7 ** i) / norm);
    points.push([Math.round(from * (to / from) ** ((i + 1) / TAIL_POINTS)), c]);
  }
  if (points.at(-1)[1] === 0) points.at(-1)[1] = 1; // there is always a slowest request
  return fixTotal(
    points.filter(([, c]) => c > 0),
    count,
  );
}

/** Rounding leaves a few requests over or short: the mode absorbs them, so the count is exact. */
function fixTotal(points, count) {
  const total = points.reduce((s, [, c]) => s + c, 0);
  const mode = points.reduce((m, p, i) => (p[1] > points[m][1] ? i : m), 0);
  points[mode][1] += count - total;
  return points;
}

/** Record points (ascending or not) into a reset histogram, and encode it. */
export function encodePoints(h, encodeHistogram, pointLists) {
  h.reset();
  for (const points of pointLists) for (const [v, c] of points) h.recordValueWithCount(v, c);
  return encodeHistogram(h);
}

/**
 * What summarizeHistogram(h) answers for the histogram just recorded from these points, computed
 * from the points (summarizeHistogram walks all ~22k buckets per percentile: 0.2 ms a call, which
 * alone would add a minute to 10,000 results). Same rounding as a decoded histogram: min and max are
 * their buckets' ends, a percentile is the top of its bucket capped at the max, the mean uses midpoints.
 */
export function summarizePoints(h, pointLists) {
  // One list is already ascending; the merged cell needs its three lists interleaved.
  const points = pointLists.length === 1 ? pointLists[0] : pointLists.flat().sort((a, b) => a[0] - b[0]);
  const count = points.reduce((s, [, c]) => s + c, 0);
  // The top of the largest value's bucket: what the histogram says once encoded and decoded.
  const maxUs = h.highestEquivalentValue(h.maxValue);
  let sum = 0;
  for (const [v, c] of points) sum += h.medianEquivalentValue(v) * c;
  const at = (p) => {
    const target = Math.max(Math.ceil((p / 100) * count - 1e-9), 1);
    let seen = 0;
    for (const [v, c] of points)
      if ((seen += c) >= target) return Math.min(h.highestEquivalentValue(v), maxUs);
    return maxUs;
  };
  return {
    count,
    minUs: h.lowestEquivalentValue(h.minNonZeroValue),
    meanUs: Math.round((sum / count) * 1000) / 1000,
    p50Us: at(50),
    p90Us: at(90),
    p95Us: at(95),
    p99Us: at(99),
    p999Us: at(99.9),
    p9999Us: at(99.99),
    maxUs,
  };
}
