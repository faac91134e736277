/**
 * Migration 3: covering indexes for the site's build. A results row keeps its envelope and document
 * (hundreds of KB) before the descriptive columns, so reading a row's cpu_model means walking the
 * overflow pages of both: listing 10,000 results read gigabytes. These indexes hold every column the
 * site's lists and headline queries read (queries/site.ts), so SQLite answers them from the index
 * and never touches the documents. Written for those queries: change one, check its plan here.
 */
export const SITE_INDEXES = `
CREATE INDEX results_site_list ON results (
  received_at, id, retracted_at, kind, started_at, suite_id, suite_profile, cpu_model, cpu_cores, cpu_threads,
  virtualization_kind, hypervisor, server_product, server_version, allocator, io_threads, persistence_on,
  link_kind, warning_codes, key_fingerprint, run_group_id, run_group_label, run_group_index
);

-- One result by id (a result page, a join from cells): the same columns again, led by the id.
CREATE INDEX results_site_by_id ON results (
  id, retracted_at, kind, received_at, started_at, suite_id, suite_profile, cpu_model, cpu_cores, cpu_threads,
  virtualization_kind, hypervisor, server_product, server_version, allocator, io_threads, persistence_on,
  link_kind, warning_codes, key_fingerprint, run_group_id, run_group_label, run_group_index
);

CREATE INDEX cells_site_headline ON cells (
  label, workload_fingerprint, result_id, idx, test, ops_median, ops_ci95_low, ops_ci95_high, p99_us, unstable
);
`;
