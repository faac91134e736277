import { ADMISSION_REASONS } from '@redis-benchdb/result';

/**
 * packages/result's admission rule (admission.ts) as an SQL condition on a cell `c` of a result `r`,
 * for the queries that rank (cohorts, a submit's rank): built from ADMISSION_REASONS, so a reason
 * added there fails the build here until it is read. Every reason reads a column the covering
 * indexes hold (migration 9), or the cell's no-verdict flags by their primary key.
 */
const NO_VERDICT_CODES = ['BUSY_HOST', 'CPU_STEAL', 'DRIFT', 'ERRORS', 'CLIENT_BOUND'] as const;

const BY_REASON: Record<(typeof ADMISSION_REASONS)[number], string> = {
  BUSY_HOST: '',
  CPU_STEAL: '',
  DRIFT: '',
  ERRORS: '',
  CLIENT_BOUND: 'c.client_bound IS NOT 1',
  IO_THREADS_OVER_CPUS: "instr(coalesce(r.warning_codes, ''), 'IO_THREADS_OVER_CPUS') = 0",
  INCOMPLETE: 'r.incomplete IS NOT 1 AND c.incomplete IS NOT 1',
  COMMANDSTATS_MISMATCH: "c.cross_check IS NOT 'mismatch'",
  // A result's standing is not a column: it depends on the other results of its kind, and the
  // queries that rank leave held results out by id (standing.ts, COHORT_SQL's @held).
  OUTLIER: '',
  PROVISIONAL: '',
};

export const ADMITTED_CELL_SQL = [
  ...ADMISSION_REASONS.map((r) => BY_REASON[r]).filter(Boolean),
  `NOT EXISTS (SELECT 1 FROM cell_measurements m WHERE m.result_id = c.result_id AND m.idx = c.idx
                  AND (${NO_VERDICT_CODES.map((k) => `instr(coalesce(m.no_verdict, ''), '${k}') > 0`).join(' OR ')}))`,
].join(' AND ');
