import {
  bucketWidthUs,
  decodeHistogram,
  type Histogram,
  HistogramError,
  type Latency,
  summarizeHistogram,
} from '@redis-benchdb/result';
import type { PlausibilityProblem } from './plausibility.js';

/** The summary fields compared with the histogram's own, in the order a reader checks them. */
const FIELDS = ['minUs', 'meanUs', 'p50Us', 'p90Us', 'p95Us', 'p99Us', 'p999Us', 'p9999Us', 'maxUs'] as const;

/**
 * Decode one of a result's histograms, or record why it cannot be: the problem carries the code
 * INVALID_HISTOGRAM (ingest answers with it) and names the cell, since a path alone is hard to read.
 */
export function decodeOrRefuse(
  encoded: string,
  path: string,
  cellName: string,
  out: PlausibilityProblem[],
): Histogram | undefined {
  try {
    return decodeHistogram(encoded);
  } catch (e) {
    if (!(e instanceof HistogramError)) throw e;
    out.push({ path, message: `${path} (cell ${cellName}): ${e.message}`, code: 'INVALID_HISTOGRAM' });
    return undefined;
  }
}

/**
 * A stated latency summary must be the summary of its histogram: the same count, and every figure
 * within one bucket of the histogram's (HdrHistogram keeps 3 significant digits, so two honest
 * summaries of one histogram differ by no more). Otherwise the figures the site prints and the
 * distribution it plots could tell two stories, and checks made on one would not hold for the other.
 */
export function checkAgreement(
  stated: Latency,
  h: Histogram,
  path: string,
  names: { summary: string; histogram: string },
  out: PlausibilityProblem[],
): void {
  if (stated.count !== h.totalCount) {
    out.push(
      problem(
        `${path}/${names.histogram}`,
        `holds ${h.totalCount} values but ${names.summary}.count is ${stated.count}: the summary is not of this histogram`,
      ),
    );
    return;
  }
  const own = summarizeHistogram(h);
  for (const field of FIELDS) {
    const said = stated[field];
    const is = own[field];
    if (said === is) continue;
    const width = bucketWidthUs(Math.max(said, is));
    if (Math.abs(said - is) > width)
      out.push(
        problem(
          `${path}/${names.summary}/${field}`,
          `${said} but its histogram (${names.histogram}) says ${is} (±${width} µs at that value): the summary is not of this histogram`,
        ),
      );
  }
}

function problem(path: string, why: string): PlausibilityProblem {
  return { path, message: `${path}: ${why}` };
}
