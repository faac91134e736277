/**
 * Migration 8: the CPU's cache sizes, as "L1d/L2/L3" in KiB. A hypervisor can name two CPU
 * generations alike: this project's own VMs reported "AMD EPYC" with a 32 KiB L1d one day and a
 * 48 KiB one the next, and the newer ran 1.2-1.6x faster. The site tells machines apart by this
 * column too, so the two are never set side by side as one machine. Null where any size is unknown
 * (and for an imported result).
 *
 * Backfilled from each signed document, as 01-initial-schema.ts promises a column always can be. The
 * site's two covering indexes are made again with it, so listing results still never reads a document.
 */
export const CPU_CACHES = `
ALTER TABLE results ADD COLUMN cpu_caches TEXT;

UPDATE results
SET cpu_caches = json_extract(document, '$.environment.client.cpu.cacheL1dKiB') || '/' ||
                 json_extract(document, '$.environment.client.cpu.cacheL2KiB') || '/' ||
                 json_extract(document, '$.environment.client.cpu.cacheL3KiB')
WHERE kind = 'signed';

DROP INDEX IF EXISTS results_site_list;
DROP INDEX IF EXISTS results_site_by_id;

CREATE INDEX results_site_list ON results (
  received_at, id, retracted_at, kind, started_at, suite_id, suite_profile, cpu_model, cpu_cores, cpu_threads,
  virtualization_kind, hypervisor, server_product, server_version, allocator, io_threads, persistence_on,
  link_kind, warning_codes, key_fingerprint, run_group_id, run_group_label, run_group_index, cpu_caches
);

CREATE INDEX results_site_by_id ON results (
  id, retracted_at, kind, received_at, started_at, suite_id, suite_profile, cpu_model, cpu_cores, cpu_threads,
  virtualization_kind, hypervisor, server_product, server_version, allocator, io_threads, persistence_on,
  link_kind, warning_codes, key_fingerprint, run_group_id, run_group_label, run_group_index, cpu_caches
);
`;
