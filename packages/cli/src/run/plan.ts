import {
  type CellOptions,
  clusterTargetRefusal,
  DEFAULT_CELL_OPTIONS,
  DEFAULT_SLO_BUDGET_SEC,
} from '@redis-benchdb/engine/options';
import type { LaunchFlags, RunPlan } from '@redis-benchdb/runner';
import { CliError, EXIT_USAGE } from '../errors.js';
import { parseTarget, type TargetFlags } from '../options/target.js';
import { parseSlo } from '../options/values.js';

// The run command's flags (commands/run.ts defines them) checked against each other, then turned
// into a plan. Imported by the command's definition, so only light modules here: the engine's entry
// is imported when a plan needs its tests.

const usage = (msg: string) => new CliError(msg, 'ERR_USAGE', EXIT_USAGE);

/** The suite's profile when none is named. */
export const DEFAULT_PROFILE = 'quick';

/** The run flags a plan reads; the compiler holds the command's definitions to these types. */
export interface PlanFlags extends TargetFlags {
  tests?: string;
  ratio?: [number, number];
  requests?: number;
  duration?: number;
  warmup?: number;
  rate?: number;
  timeout?: number;
  trials?: number;
  profile?: string;
  slo?: string;
  sloBudget?: number;
  serverBin?: string[];
}

/** Every rule between the run flags, before anything starts: a bad combination exits 2 with the fix. */
export async function checkRunFlags(f: PlanFlags & LaunchFlags, command: string[]): Promise<void> {
  checkClusterFlags(f);
  checkSloFlags(f, command);
  if (!f.serverBin) (await import('@redis-benchdb/runner')).checkLaunchFlags(f);
}

/**
 * --cluster against flags it cannot work with, refused before anything starts: the engine's rules of
 * a cluster target (clusterTargetRefusal), and the launched servers, which are standalone.
 */
function checkClusterFlags(f: PlanFlags): void {
  if (!f.cluster) return;
  const refusal = clusterTargetRefusal({ socket: f.socket, db: f.dbnum });
  if (refusal) throw usage(refusal);
  if (f.serverBin !== undefined)
    throw usage('--cluster measures a running cluster: drop --server-bin (it launches standalone servers)');
}

/** --slo chooses each step's rate and length itself, and runs on one server. */
function checkSloFlags(f: PlanFlags, command: string[]): void {
  if (f.slo === undefined) {
    if (f.sloBudget !== undefined) throw usage("--slo-budget needs --slo (e.g. --slo 'p99<=1ms')");
    return;
  }
  if (f.sloBudget !== undefined && !(f.sloBudget >= 5))
    throw usage(`invalid SLO budget (--slo-budget): "${f.sloBudget}" (expected at least 5 seconds)`);
  const clash = (
    [
      ['rate', '--rate'],
      ['requests', '-n'],
      ['duration', '--duration'],
      ['warmup', '--warmup'],
      ['serverBin', '--server-bin'],
    ] as const
  ).find(([k]) => f[k] !== undefined);
  if (clash)
    throw usage(`--slo chooses each step's rate, length and warm-up itself, on one server: drop ${clash[1]}`);
  if (f.tests === undefined && command.length === 0 && f.ratio === undefined)
    throw usage("--slo searches the tests you name: add -t (e.g. -t get --slo 'p99<=1ms')");
}

/** The cell options the flags set: each flag the options table marks with `cell` (commands/run.ts). */
export function cellOverrides(
  options: Readonly<Record<string, object>>,
  f: Readonly<Record<string, unknown>>,
): Partial<CellOptions> {
  const common: Partial<CellOptions> = {};
  for (const [key, def] of Object.entries(options)) {
    const value = f[key];
    if ('cell' in def && value !== undefined) Object.assign(common, { [def.cell as string]: value });
  }
  return common;
}

/** What to run against what: the target, the cells (null: the suite's), the overrides, the trials. */
export async function planRun(
  f: PlanFlags,
  command: string[],
  common: Partial<CellOptions>,
): Promise<RunPlan> {
  const target = parseTarget(f);
  if (f.timeout !== undefined) target.replyTimeoutSec = f.timeout;
  // A throwaway server is standalone: with --cluster, 127.0.0.1:6379 is the node to ask, or an error.
  const targetIsDefault =
    f.host === undefined &&
    f.port === undefined &&
    f.socket === undefined &&
    f.uri === undefined &&
    !f.cluster;
  if (f.duration !== undefined && f.requests !== undefined)
    throw usage('give either -n (requests) or --duration (seconds), not both');
  const trials = f.trials ?? null;
  const profile = f.profile ?? DEFAULT_PROFILE;
  const slo = f.slo
    ? { objectives: await parseSlo(f.slo), budgetSec: f.sloBudget ?? DEFAULT_SLO_BUDGET_SEC }
    : null;
  if (f.tests === undefined && command.length === 0 && f.ratio === undefined)
    return { target, targetIsDefault, cells: null, common, profile, trials, slo };
  return {
    target,
    targetIsDefault,
    cells: await adHocCells(f, command, common),
    common,
    profile,
    trials,
    slo,
  };
}

/** Cells from -t, --ratio or a custom command: redis-benchmark's defaults, then the flags given. */
async function adHocCells(
  f: PlanFlags,
  command: string[],
  common: Partial<CellOptions>,
): Promise<CellOptions[]> {
  const base: CellOptions = { ...DEFAULT_CELL_OPTIONS, ...common };
  if (f.duration !== undefined) delete base.requests;
  if (f.ratio !== undefined) return [{ ...base, test: 'SET:GET', setGetRatio: f.ratio }];
  if (command.length > 0) return [{ ...base, test: 'CUSTOM', command }];
  const { findTests } = await import('@redis-benchdb/engine');
  try {
    return findTests(f.tests!.split(',')).map((t) => ({ ...base, test: t.name }));
  } catch (err) {
    throw usage((err as Error).message);
  }
}
