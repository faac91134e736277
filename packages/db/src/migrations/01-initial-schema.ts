/**
 * Migration 1: results, their cells and warnings.
 *
 * The document (and, for a signed result, the envelope as verified, in canonical form) is the record; every other column
 * is copied out of it at ingest so the site can filter and sort without parsing JSON. So a column can
 * always be rebuilt from `document`, and a later migration may add columns and backfill them from it.
 *
 * Imported results (published figures re-typed from a blog or a paper, kind 'imported') are known
 * less well than our own runs: every descriptive column is nullable, and only signed rows must carry
 * an envelope and a key. Their document format belongs to packages/result, not to this file.
 *
 * STRICT tables: a text where an integer belongs is an error, not a silently stored string.
 */
export const INITIAL_SCHEMA = `
CREATE TABLE results (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('signed', 'imported')),
  schema TEXT NOT NULL,
  envelope TEXT,
  document TEXT NOT NULL,
  key_fingerprint TEXT,
  received_at TEXT NOT NULL,
  retracted_at TEXT,
  retraction TEXT,
  runner_version TEXT,
  suite_id TEXT,
  suite_version INTEGER,
  suite_profile TEXT,
  started_at TEXT,
  finished_at TEXT,
  incomplete INTEGER CHECK (incomplete IN (0, 1)),
  environment_fingerprint TEXT,
  cpu_model TEXT,
  cpu_cores INTEGER,
  cpu_threads INTEGER,
  virtualization_kind TEXT,
  hypervisor TEXT,
  server_product TEXT,
  server_version TEXT,
  server_version_major INTEGER,
  server_version_minor INTEGER,
  allocator TEXT,
  io_threads INTEGER,
  persistence_on INTEGER CHECK (persistence_on IN (0, 1)),
  link_kind TEXT,
  warning_codes TEXT,
  CHECK (kind <> 'signed' OR (envelope IS NOT NULL AND key_fingerprint IS NOT NULL))
) STRICT;

-- The site's question is "these cells, on this kind of server": the server side of it.
CREATE INDEX results_by_server ON results (server_product, server_version_major, virtualization_kind);
CREATE INDEX results_by_received ON results (received_at);
CREATE INDEX results_by_key ON results (key_fingerprint);
CREATE INDEX results_by_environment ON results (environment_fingerprint);

CREATE TABLE cells (
  result_id TEXT NOT NULL REFERENCES results (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  label TEXT NOT NULL,
  test TEXT NOT NULL,
  workload_fingerprint TEXT,
  connections INTEGER,
  pipeline_depth INTEGER,
  pipeline_mode TEXT,
  value_size_min INTEGER,
  value_size_max INTEGER,
  keyspace_size INTEGER,
  key_pattern TEXT,
  rate_ops_per_sec REAL,
  trial_count INTEGER,
  ops_median REAL,
  ops_ci95_low REAL,
  ops_ci95_high REAL,
  ops_cv REAL,
  unstable INTEGER CHECK (unstable IN (0, 1)),
  min_us REAL,
  mean_us REAL,
  p50_us REAL,
  p90_us REAL,
  p95_us REAL,
  p99_us REAL,
  p999_us REAL,
  p9999_us REAL,
  max_us REAL,
  histogram TEXT,
  client_bound INTEGER CHECK (client_bound IN (0, 1)),
  limited_by TEXT,
  cross_check TEXT,
  hit_ratio REAL,
  incomplete INTEGER CHECK (incomplete IN (0, 1)),
  PRIMARY KEY (result_id, idx)
) STRICT;

-- "GET at pipeline 16": the cell side of the site's question; connections last, as it is often left open.
CREATE INDEX cells_by_test ON cells (test, pipeline_depth, connections);
-- Equal fingerprints ran the same workload: the comparison view lists them together.
CREATE INDEX cells_by_workload ON cells (workload_fingerprint);

CREATE TABLE warnings (
  result_id TEXT NOT NULL REFERENCES results (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  code TEXT NOT NULL,
  cell_label TEXT,
  message TEXT NOT NULL,
  PRIMARY KEY (result_id, idx)
) STRICT;

CREATE INDEX warnings_by_code ON warnings (code);
`;
