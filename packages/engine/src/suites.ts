import type { SloObjective } from '@redis-benchdb/result';
import type { CellOptions } from './options.js';
import { DEFAULT_CELL_OPTIONS, OptionsError } from './options.js';
import { describeObjectives, parseObjectives } from './slo/objectives.js';
import standardV1 from './suites/standard-v1.json' with { type: 'json' };

/** A suite is data: a baseline cell, and per profile the cells that differ from it. */
export interface SuiteDefinition {
  id: string;
  version: number;
  description: string;
  /** What a reader of the results should know of the suite's choices. */
  notes?: string;
  baseline: Partial<CellOptions>;
  profiles: Record<string, SuiteProfile>;
}

export interface SuiteProfile {
  description: string;
  /** Each cell runs this many times; the result keeps every trial. */
  trials: number;
  durationSec: number;
  warmupSec: number;
  cells: SuiteCellSpec[];
}

/** A cell as the suite writes it: what differs from the baseline, and objectives for a search cell. */
export type SuiteCellSpec = Partial<CellOptions> & {
  /** A throughput-at-latency-objective cell (as `run --slo`): e.g. `p99<=1ms`. */
  slo?: string;
};

export interface SuiteCell {
  /** What sets this cell apart from the baseline, e.g. `GET P16` or `SET 4KiB k1000`. */
  label: string;
  options: CellOptions;
  /** The objectives of a search cell (each trial one search), else null. */
  slo: SloObjective[] | null;
}

export const SUITES: Record<string, SuiteDefinition> = { 'standard-v1': standardV1 as SuiteDefinition };

export function suiteCells(
  suiteId: string,
  profile: string,
  overrides: Partial<CellOptions> = {},
): SuiteCell[] {
  const suite = SUITES[suiteId];
  if (!suite)
    throw new OptionsError(`unknown suite "${suiteId}": expected ${Object.keys(SUITES).join(', ')}`);
  const p = suite.profiles[profile];
  if (!p)
    throw new OptionsError(
      `unknown profile "${profile}" of ${suiteId}: expected ${Object.keys(suite.profiles).join(', ')}`,
    );
  const base: CellOptions = { ...DEFAULT_CELL_OPTIONS, ...suite.baseline, ...overrides };
  const out: SuiteCell[] = [];
  const seen = new Set<string>();
  for (const { slo: sloText, ...cell } of p.cells) {
    const options: CellOptions = {
      ...DEFAULT_CELL_OPTIONS,
      ...suite.baseline,
      durationSec: p.durationSec,
      warmupSec: p.warmupSec,
      ...cell,
      ...overrides,
    };
    if (options.durationSec !== undefined && overrides.requests === undefined) delete options.requests;
    // --threads applies where a cell has the connections for it (the one-connection cell has not).
    options.threads = Math.min(options.threads, options.connections);
    // An override can make sweep cells identical (-r on the key-space sweep): run each once.
    const key = JSON.stringify([options, sloText]);
    if (seen.has(key)) continue;
    seen.add(key);
    const slo = sloText === undefined ? null : parseObjectives(sloText);
    const label = cellLabel(options, base) + (slo ? ` ${describeObjectives(slo)}` : '');
    out.push({ label, options, slo });
  }
  return out;
}

/** A short name for a cell: its test, then each parameter that differs from the baseline. */
export function cellLabel(o: CellOptions, base: CellOptions): string {
  const parts = [
    o.setGetRatio
      ? `SET:GET ${o.setGetRatio.join(':')}`
      : o.test === 'CUSTOM'
        ? (o.command ?? []).join(' ')
        : o.test,
  ];
  if (o.pipelineDepth !== base.pipelineDepth || o.pipelineMode !== base.pipelineMode) {
    parts.push(`P${o.pipelineDepth}${o.pipelineMode === 'window' ? 'w' : ''}`);
  }
  if (JSON.stringify(o.valueSizeBytes) !== JSON.stringify(base.valueSizeBytes))
    parts.push(formatBytes(o.valueSizeBytes));
  if (o.keyspaceSize !== base.keyspaceSize) parts.push(`k${o.keyspaceSize}`);
  if (o.connections !== base.connections) parts.push(`c${o.connections}`);
  return parts.join(' ');
}

function formatBytes(v: number | [number, number]): string {
  const one = (n: number) => (n >= 1024 && n % 1024 === 0 ? `${n / 1024}KiB` : `${n}B`);
  return typeof v === 'number' ? one(v) : `${one(v[0])}-${one(v[1])}`;
}
