import type { BenchDb } from '../database/open.js';
import { cohort } from './cohort.js';

/**
 * How a cohort's results spread: the read API's answer for one workload fingerprint, on one machine
 * kind or on every kind, in one configuration (the default one unless asked) or in any. Its cost is
 * the cohort's (cohort.ts): one range of a covering index, growing with the cohort, never with the
 * rest of the database.
 */

/** Below this many results, percentiles would claim more than the results show: the values are listed instead. */
export const MIN_COHORT_FOR_PERCENTILES = 5;

/** The percentiles given, in percent. */
export const DISTRIBUTION_PERCENTILES = [10, 25, 50, 75, 90] as const;

export interface DistributionOptions {
  /** One machine kind (packages/result identity.ts key); left out, every kind. */
  machineKey?: string;
  /** A configuration key, 'default' (the default) or 'any': every configuration. */
  config?: string;
  /** Only results naming this CPU model (deprecated in the read API: several kinds may share a name). */
  cpuModel?: string;
}

export interface CohortDistribution {
  workloadFingerprint: string;
  /** The machine kind the cohort was narrowed to, or null for every kind (`machines` lists them). */
  machine: { key: string; label: string | null } | null;
  /** 'default', 'any', or the one configuration asked for. */
  configuration: 'default' | 'any' | { key: string; label: string | null };
  /** The CPU model name the cohort was narrowed to (deprecated), or null. */
  cpuModel: string | null;
  /** The machine kinds among the members, most members first: a summary over several pools them. */
  machines: { key: string | null; label: string | null; count: number }[];
  count: number;
  distinctSigners: number;
  opsPerSec: {
    min: number | null;
    max: number | null;
    /** Nearest-rank percentiles (each is one member's median ops/s); null under MIN_COHORT_FOR_PERCENTILES. */
    percentiles: Record<`p${(typeof DISTRIBUTION_PERCENTILES)[number]}`, number> | null;
    /** Every member's median ops/s, slowest first, when there are too few for percentiles. */
    values: number[] | null;
  };
}

export function cohortDistribution(
  db: BenchDb,
  workloadFingerprint: string,
  opts: DistributionOptions = {},
): CohortDistribution {
  const config = opts.config ?? 'default';
  const c = cohort(db, workloadFingerprint, {
    ...(opts.machineKey !== undefined ? { machineKey: opts.machineKey } : {}),
    ...(opts.cpuModel !== undefined ? { cpuModel: opts.cpuModel } : {}),
    ...(config !== 'any' ? { config } : {}),
  });
  const ops = c.members.map((m) => m.opsPerSec);
  const enough = ops.length >= MIN_COHORT_FOR_PERCENTILES;
  const kinds = new Map<string | null, { key: string | null; label: string | null; count: number }>();
  for (const m of c.members) {
    const k = kinds.get(m.machineKey) ?? { key: m.machineKey, label: m.machineLabel, count: 0 };
    k.count++;
    kinds.set(m.machineKey, k);
  }
  const machines = [...kinds.values()].sort(
    (a, b) => b.count - a.count || String(a.key).localeCompare(String(b.key)),
  );
  const one = c.members[0];
  return {
    workloadFingerprint,
    machine:
      opts.machineKey !== undefined ? { key: opts.machineKey, label: machines[0]?.label ?? null } : null,
    configuration:
      config === 'default' || config === 'any' ? config : { key: config, label: one?.configLabel ?? null },
    cpuModel: opts.cpuModel ?? null,
    machines,
    count: ops.length,
    distinctSigners: c.distinctSigners,
    opsPerSec: {
      min: ops[0] ?? null,
      max: ops.at(-1) ?? null,
      percentiles: enough
        ? (Object.fromEntries(
            DISTRIBUTION_PERCENTILES.map((q) => [`p${q}`, nearestRank(ops, q)]),
          ) as NonNullable<CohortDistribution['opsPerSec']['percentiles']>)
        : null,
      values: enough ? null : ops,
    },
  };
}

/** The smallest value with at least q% of the values at or below it. `sorted` ascending, not empty. */
export function nearestRank(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil((q / 100) * sorted.length) - 1)]!;
}
