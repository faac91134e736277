import type { CellOptions, SloSearchOptions, Target } from '@redis-benchdb/engine';

/**
 * What a run reads beyond its plan: how it prints, whether it starts a throwaway server, where
 * its result is kept and sent. The run command's flags (commands/run.ts) are passed as they are;
 * the compiler holds their definitions to these types.
 */
export interface RunRequest {
  /** -q: ops/s and p50 only. */
  quiet?: boolean;
  csv?: boolean;
  json?: boolean;
  /** The signed result's file. */
  out?: string;
  allowErrors?: boolean;
  /** false with --no-launch. */
  launch?: boolean;
  /** false with --no-store. */
  store?: boolean;
  db?: string;
  submit?: boolean;
  /** The ingest service for --submit. */
  server?: string;
  cloudMetadata?: boolean;
  clientCpus?: string;
  /** --memory-budget, in bytes (memory-budget.ts has the default). */
  memoryBudget?: number;
  serverMemoryOk?: boolean;
}

/** What to run against what, from the run command's flags. */
export interface RunPlan {
  target: Target;
  /** True when the user named no server: the CLI may start a throwaway one if nothing answers. */
  targetIsDefault: boolean;
  /** Ad hoc cells from -t or a custom command; null means: run the suite's profile. */
  cells: CellOptions[] | null;
  /** Overrides applied to every suite cell (threads, seed...). */
  common: Partial<CellOptions>;
  profile: string;
  /** Trials per cell when given; otherwise the suite profile's, or 1 for ad hoc cells. */
  trials: number | null;
  /** --slo: each cell is a search for the highest rate at these objectives (each trial one search). */
  slo?: SloSearchOptions | null;
}
