// The most CPU one body under the service's 4 MiB limit can cost ingest's checks (the `body` case of
// scripts/bench-decode.mjs): a validly signed result filled with trials whose histograms hold a count
// in every one of their 23,552 buckets. Its signature, schema and every histogram are checked before
// it is refused: about 0.8 s of CPU on a quiet 2-vCPU VM.
import {
  canonicalJson,
  createLatencyHistogram,
  encodeHistogram,
  HIGHEST_TRACKABLE_US,
  type ResultV1,
  summarizeHistogram,
} from '@redis-benchdb/result';
import { DEFAULT_APP_OPTIONS } from '../dist/index.js';
import { signPayload, variant } from './fixtures.js';

/** The schema's limit of trials in one cell (the runner's largest --trials). */
const MAX_TRIALS = 1000;

/** The value HdrHistogram (3 significant digits, lowest 1) gives bucket index i. */
function valueAtIndex(i: number): number {
  const half = 1024;
  const bucket = Math.floor(i / half) - 1;
  return bucket < 0 ? i : ((i % half) + half) * 2 ** bucket;
}

/** Result n with as many widest-histogram trials as fit under the body limit, signed. */
export function heaviestBody(n: number): string {
  const h = createLatencyHistogram();
  for (let i = 0; i < 23_552; i++) {
    const v = valueAtIndex(i);
    if (v <= HIGHEST_TRACKABLE_US) h.recordValueWithCount(v, 1);
  }
  const base = variant(n);
  const cell = base.cells[0]!;
  const trial = {
    ...cell.trials[0]!,
    histogram: encodeHistogram(h),
    latencyUs: summarizeHistogram(h),
    opsPerSec: 1,
  };
  const limit = DEFAULT_APP_OPTIONS.bodyLimitBytes;
  let count = Math.floor(limit / JSON.stringify(trial).length);
  for (;;) {
    count = Math.floor(count * 0.97);
    const cells: ResultV1['cells'] = [];
    for (let left = count; left > 0; left -= MAX_TRIALS) {
      const k = Math.min(left, MAX_TRIALS);
      const trials = Array.from({ length: k }, () => ({ ...trial }));
      cells.push({ ...cell, label: `${cell.label} ${cells.length}`, trials, trialCount: k });
    }
    const text = signPayload(canonicalJson({ ...base, cells }));
    if (Buffer.byteLength(text) <= limit) return text;
  }
}
