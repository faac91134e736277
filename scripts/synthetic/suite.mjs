// The standard-v1 cells, read from the engine's suite file (data, so no engine build is needed),
// with the label and workload a real run records. Workloads and fingerprints are built once:
// equal workloads share a fingerprint across results, and across profiles, as in real runs.

import { readFileSync } from 'node:fs';
import { workloadFingerprint } from '@redis-benchdb/result';

const suite = JSON.parse(
  readFileSync(new URL('../../packages/engine/src/suites/standard-v1.json', import.meta.url), 'utf8'),
);

// The engine's defaults under the suite's baseline (packages/engine/src/options.ts DEFAULT_CELL_OPTIONS).
const BASE = { zipfExponent: 0.99, seed: 1, arrival: 'constant', threads: 1, ...suite.baseline };

export const SUITE_ID = suite.id;
export const SUITE_VERSION = suite.version;

/** Like the engine's cellLabel: the test, then what differs from the baseline. */
function label(c) {
  const parts = [c.test];
  if (c.pipelineDepth !== BASE.pipelineDepth) parts.push(`P${c.pipelineDepth}`);
  if (c.valueSizeBytes !== BASE.valueSizeBytes)
    parts.push(c.valueSizeBytes >= 1024 ? `${c.valueSizeBytes / 1024}KiB` : `${c.valueSizeBytes}B`);
  if (c.keyspaceSize !== BASE.keyspaceSize) parts.push(`k${c.keyspaceSize}`);
  if (c.connections !== BASE.connections) parts.push(`c${c.connections}`);
  return parts.join(' ');
}

function profileCells(name) {
  const p = suite.profiles[name];
  // The search cells (slo, since version 2) record a search's steps, which this generator does not
  // make up: the synthetic results have the other cells only.
  return p.cells
    .filter((cell) => cell.slo === undefined)
    .map((cell) => {
      const c = { ...BASE, ...cell };
      const workload = {
        test: c.test,
        command: null,
        setGetRatio: null,
        connections: c.connections,
        pipelineDepth: c.pipelineDepth,
        pipelineMode: c.pipelineMode,
        valueSizeBytes: { min: c.valueSizeBytes, max: c.valueSizeBytes },
        keyspaceSize: c.keyspaceSize,
        keyPattern: c.keyPattern,
        zipfExponent: c.zipfExponent,
        seed: c.seed,
        requests: null,
        durationSec: p.durationSec,
        warmupSec: p.warmupSec,
        rateOpsPerSec: null,
        arrival: c.arrival,
        threads: c.threads,
        preload: c.preload,
      };
      return { label: label(c), workload, fingerprint: workloadFingerprint(workload), trials: p.trials };
    });
}

export const PROFILES = { quick: profileCells('quick'), full: profileCells('full') };
