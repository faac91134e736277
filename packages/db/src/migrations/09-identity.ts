import type Database from 'better-sqlite3';
import { shippedIdentityColumns } from './shipped/09-identity-columns.js';

/**
 * Migration 9: each result's machine kind and configuration, as packages/result's identity.ts
 * defines them (CPU vendor, model, family/model/stepping, cores, threads, caches, virtualization,
 * container; io-threads, persistence, transport, topology, allocator...). Stored as columns so every
 * view, the read API and the CLI's rank group by the same key without reading a document. Backfilled
 * as ingest computed them when this shipped (shipped/09-identity-columns.ts). The site's two covering indexes are made again with them, and the
 * cells' cohort index with what admission reads of a cell (cross-check, incomplete).
 */
const COLUMNS = `
ALTER TABLE results ADD COLUMN machine_key TEXT;
ALTER TABLE results ADD COLUMN machine_label TEXT;
ALTER TABLE results ADD COLUMN config_key TEXT;
ALTER TABLE results ADD COLUMN config_label TEXT;
ALTER TABLE results ADD COLUMN config_default INTEGER;
`;

const INDEXES = `
-- The explorer's walk also reads what admission needs of a cell: still from the index alone.
DROP INDEX IF EXISTS cells_cohort;
CREATE INDEX cells_cohort ON cells (
  workload_fingerprint, ops_median, result_id, label, ops_ci95_low, ops_ci95_high, p50_us, p99_us, unstable,
  client_bound, idx, cross_check, incomplete
);

DROP INDEX IF EXISTS results_site_list;
DROP INDEX IF EXISTS results_site_by_id;

CREATE INDEX results_site_list ON results (
  received_at, id, retracted_at, kind, started_at, suite_id, suite_profile, cpu_model, cpu_cores, cpu_threads,
  virtualization_kind, hypervisor, server_product, server_version, allocator, io_threads, persistence_on,
  link_kind, warning_codes, key_fingerprint, run_group_id, run_group_label, run_group_index, cpu_caches,
  machine_key, machine_label, config_key, config_label, config_default, incomplete
);

CREATE INDEX results_site_by_id ON results (
  id, retracted_at, kind, received_at, started_at, suite_id, suite_profile, cpu_model, cpu_cores, cpu_threads,
  virtualization_kind, hypervisor, server_product, server_version, allocator, io_threads, persistence_on,
  link_kind, warning_codes, key_fingerprint, run_group_id, run_group_label, run_group_index, cpu_caches,
  machine_key, machine_label, config_key, config_label, config_default, incomplete
);
`;

export function identityMigration(sqlite: Database.Database): void {
  sqlite.exec(COLUMNS);
  const rows = sqlite
    .prepare<[], { id: string; kind: 'signed' | 'imported' }>('SELECT id, kind FROM results')
    .all();
  const doc = sqlite.prepare<[string], { document: string }>('SELECT document FROM results WHERE id = ?');
  const update = sqlite.prepare(
    `UPDATE results SET machine_key = @machine_key, machine_label = @machine_label, config_key = @config_key,
            config_label = @config_label, config_default = @config_default WHERE id = @id`,
  );
  for (const r of rows) {
    // A row stored before some field existed keeps null columns rather than stopping the database from opening.
    try {
      update.run({ id: r.id, ...shippedIdentityColumns(r.kind, JSON.parse(doc.get(r.id)!.document)) });
    } catch {}
  }
  sqlite.exec(INDEXES);
}
