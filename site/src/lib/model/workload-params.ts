import { type NormalizedWorkload, normalizeWorkload, type WorkloadInput } from '@redis-benchdb/result';
import { canonicalObjectiveText as sloObjectiveText } from './slo.js';

// WorkloadParams is declared here, beside the function that builds it, and not in explore.ts:
// model.ts and compare.ts need the type, and explore.ts imports format.ts, which imports model.ts.

/** A workload's parameters, as the explorer and compare name them (see explore.ts). */
export interface WorkloadParams {
  test: string;
  pipeline: number;
  mode: string;
  valueMin: number;
  valueMax: number;
  keys: number;
  pattern: string;
  conns: number;
  /** Open loop: the rate asked for; null for closed loop. */
  rate: number | null;
  /** The other fingerprinted settings that are not at their default, as words: "preload", "arrival poisson". */
  extra: string[];
}

/**
 * A fingerprinted workload as the explorer and compare name it: every parameter the fingerprint
 * covers, so two workloads with different fingerprints always differ somewhere in these.
 */
export function workloadParams(workload: WorkloadInput | NormalizedWorkload): WorkloadParams {
  const w = normalizeWorkload(workload as WorkloadInput);
  const extra: string[] = [];
  if (w.command) extra.push(`command ${w.command.join(' ')}`);
  if (w.setGetRatio) extra.push(`SET:GET ${w.setGetRatio[0]}:${w.setGetRatio[1]}`);
  if (w.zipfExponent !== 0.99) extra.push(`zipf exponent ${w.zipfExponent}`);
  if (w.arrival !== 'constant') extra.push(`${w.arrival} arrivals`);
  if (w.preload) extra.push('keys preloaded');
  // A search cell's figure is an answer, not a throughput: every page that names the workload says so.
  if (w.slo) extra.push(`max ops/s at ${sloObjectiveText(w.slo)}`);
  return {
    test: w.test,
    pipeline: w.pipelineDepth,
    mode: w.pipelineMode,
    valueMin: w.valueSizeBytes.min,
    valueMax: w.valueSizeBytes.max,
    keys: w.keyspaceSize,
    pattern: w.keyPattern,
    conns: w.connections,
    rate: w.rateOpsPerSec,
    extra,
  };
}
