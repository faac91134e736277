/**
 * Migration 4: indexes for cohorts (a workload's results, ranked) and neighbours (results on the same
 * CPU model or server version). Both are asked once per result page at build, and by the CLI after a
 * submit and by the read API one at a time: each must read an index range, never a cell's histogram
 * or a result's document. Written for cohort.ts and neighbours.ts: change a query there, check its
 * plan in their tests.
 */
export const COHORT_INDEXES = `
-- A workload's cells, slowest first, with what a cohort, a rank and the explorer's bars read.
CREATE INDEX cells_cohort ON cells (
  workload_fingerprint, ops_median, result_id, label, ops_ci95_low, ops_ci95_high, p50_us, p99_us, unstable,
  client_bound
);

-- Same CPU model and server version, newest first; and same CPU model, newest first.
CREATE INDEX results_by_cpu_version ON results (
  cpu_model, server_product, server_version, received_at, id, retracted_at
);
CREATE INDEX results_by_cpu ON results (cpu_model, received_at, id, server_product, server_version, retracted_at);
-- Same server version on any machine, newest first.
CREATE INDEX results_by_version ON results (server_product, server_version, received_at, id, cpu_model, retracted_at);
`;
