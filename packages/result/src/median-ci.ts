/**
 * A distribution-free confidence interval of a median from order statistics: the k-th smallest and
 * k-th largest values, with k the largest rank whose binomial tail leaves the confidence asked. It
 * costs one sort, where a bootstrap (stats.ts, for a cell's few trials) costs resamples × n log n:
 * this is the one for medians over thousands of results. Exact for every n (binomial terms summed
 * in log space, so 2^-n does not underflow).
 */
export interface OrderStatisticCi {
  low: number;
  high: number;
  /**
   * The interval's actual coverage, at least the confidence asked, except with too few values to
   * reach it (5 or fewer for 95%): then the interval is the whole range, and this says how sure it is.
   */
  coverage: number;
}

export function medianCiOrderStatistics(xs: readonly number[], confidence = 0.95): OrderStatisticCi {
  if (xs.length === 0) throw new RangeError('medianCiOrderStatistics: empty input (need at least one value)');
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(
      `medianCiOrderStatistics: confidence must be strictly between 0 and 1, got ${confidence}`,
    );
  for (const x of xs)
    if (!Number.isFinite(x)) throw new RangeError(`medianCiOrderStatistics: non-finite value ${String(x)}`);
  const sorted = Float64Array.from(xs).sort();
  const n = sorted.length;
  const tail = (1 - confidence) / 2;
  // P(X <= j) for X ~ Binomial(n, 1/2), j = 0, 1, ...: the chance the median lies below x_(j+1).
  let logPmf = -n * Math.LN2;
  let cdf = Math.exp(logPmf);
  let k = 0; // the largest k with P(X <= k - 1) <= tail
  let below = 0; // P(X <= k - 1)
  for (let j = 0; j < n / 2 && cdf <= tail; j++) {
    k = j + 1;
    below = cdf;
    logPmf += Math.log((n - j) / (j + 1));
    cdf += Math.exp(logPmf);
  }
  if (k === 0) return { low: sorted[0]!, high: sorted[n - 1]!, coverage: n === 1 ? 0 : 1 - 2 * 0.5 ** n };
  return { low: sorted[k - 1]!, high: sorted[n - k]!, coverage: 1 - 2 * below };
}
