import type { Latency } from '../generated/result-v1.js';
import { bucketWidthUs, type LatencySummaryUs } from '../histogram.js';
import {
  type DecodeScratch,
  decodeCounts,
  MAX_INFLATED_BYTES,
  newDecodeScratch,
} from '../histogram-decode.js';
import { HistogramError } from '../histogram-error.js';
import { summarizeCounts } from '../histogram-summary.js';
import type { PlausibilityProblem } from './plausibility-problem.js';

/** The summary fields compared with the histogram's own, in the order a reader checks them. */
const FIELDS = ['minUs', 'meanUs', 'p50Us', 'p90Us', 'p95Us', 'p99Us', 'p999Us', 'p9999Us', 'maxUs'] as const;

/**
 * What all the histograms of one result may inflate to together. Each is bounded on its own
 * (MAX_INFLATED_BYTES), but a 4 MiB body holds thousands of 100-byte histograms. An honest histogram
 * inflates to a few KiB (one or two bytes per non-empty bucket), so 8 MiB is over a thousand of them.
 */
export const MAX_RESULT_HISTOGRAM_BYTES = 8 * 1024 * 1024;

/** The decoding work left for one result. */
export interface DecodeBudget {
  inflatedBytesLeft: number;
  /** Where each histogram is decoded: its summary is taken before the next one is read. */
  scratch: DecodeScratch;
}

export function newDecodeBudget(): DecodeBudget {
  return { inflatedBytesLeft: MAX_RESULT_HISTOGRAM_BYTES, scratch: newDecodeScratch() };
}

/**
 * Decode one of a result's histograms to its summary (never building an HdrHistogram: see
 * summarizeCounts), or record why it cannot be: the problem carries the code INVALID_HISTOGRAM
 * (ingest answers with it) and names the cell, since a path alone is hard to read.
 */
export function decodeOrRefuse(
  encoded: string,
  path: string,
  cellName: string,
  budget: DecodeBudget,
  out: PlausibilityProblem[],
): LatencySummaryUs | undefined {
  if (budget.inflatedBytesLeft < 0) return undefined; // said once, below
  try {
    const decoded = decodeCounts(encoded, budget.scratch);
    budget.inflatedBytesLeft -= decoded.inflatedBytes;
    if (budget.inflatedBytesLeft < 0) {
      out.push({
        path,
        message: `${path} (cell ${cellName}): the result's histograms inflate to more than ${MAX_RESULT_HISTOGRAM_BYTES} bytes in all (honest ones take a few KiB each, at most ${MAX_INFLATED_BYTES}); the rest were not read`,
        code: 'INVALID_HISTOGRAM',
      });
      return undefined;
    }
    return summarizeCounts(decoded);
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
  own: LatencySummaryUs,
  path: string,
  names: { summary: string; histogram: string },
  out: PlausibilityProblem[],
): void {
  if (stated.count !== own.count) {
    out.push(
      problem(
        `${path}/${names.histogram}`,
        `holds ${own.count} values but ${names.summary}.count is ${stated.count}: the summary is not of this histogram`,
      ),
    );
    return;
  }
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
  return { code: 'IMPLAUSIBLE', path, message: `${path}: ${why}` };
}
