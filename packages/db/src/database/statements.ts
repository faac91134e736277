import type Database from 'better-sqlite3';
import {
  insertMeasurementSql,
  type MEASUREMENT_COLUMNS,
  type MeasurementRow,
} from '../ingest/measurements.js';
import type { CellRow, ResultRow, WarningRow } from '../ingest/rows.js';

/**
 * Every fixed statement, prepared once when the database is opened: preparing parses and plans the
 * SQL, which costs more than running a small INSERT. findCells builds its SQL from the filter, so
 * those statements are prepared on first use of each filter shape and kept in `findCells`.
 */
export interface Statements {
  insertResult: Database.Statement<[ResultRow], unknown>;
  insertCell: Database.Statement<[CellRow], unknown>;
  insertWarning: Database.Statement<[WarningRow], unknown>;
  insertMeasurement: Database.Statement<[MeasurementRow], unknown>;
  /** The earliest-received other result with a cell of this histogram digest (copies.ts). */
  sameHistogram: Database.Statement<[string, string], SameHistogramRow>;
  insertCopy: Database.Statement<[{ result_id: string; copy_of: string; cell_label: string }], unknown>;
  copyOf: Database.Statement<[string], { copy_of: string }>;
  resultKey: Database.Statement<[string], ResultKeyRow>;
  insertEnvelope: Database.Statement<[{ result_id: string; histograms: Buffer; body: Buffer }], unknown>;
  retract: Database.Statement<[{ id: string; retractedAt: string; retraction: string }], unknown>;
  listResults: Database.Statement<[{ limit: number; offset: number; includeRetracted: 0 | 1 }], ListRow>;
  listRunGroup: Database.Statement<[string], ListRow>;
  /** Every stored member of a run group, retracted too, first received first (run-group.ts). */
  runGroupMembers: Database.Statement<[string], RunGroupMemberRow>;
  count: Database.Statement<[], { results: number; retracted: number; cells: number; warnings: number }>;
  /** findCells' statements, by filter shape. */
  findCells: Map<string, Database.Statement<[Record<string, unknown>], unknown>>;
}

const RESULT_COLUMNS = [
  'id',
  'kind',
  'schema',
  'envelope',
  'document',
  'key_fingerprint',
  'received_at',
  'runner_version',
  'suite_id',
  'suite_version',
  'suite_profile',
  'started_at',
  'finished_at',
  'incomplete',
  'environment_fingerprint',
  'cpu_model',
  'cpu_cores',
  'cpu_threads',
  'virtualization_kind',
  'hypervisor',
  'server_product',
  'server_version',
  'server_version_major',
  'server_version_minor',
  'allocator',
  'io_threads',
  'persistence_on',
  'link_kind',
  'warning_codes',
  'run_group_id',
  'run_group_label',
  'run_group_index',
  'run_group_size',
  'cpu_caches',
  'machine_key',
  'machine_label',
  'config_key',
  'config_label',
  'config_default',
] as const satisfies readonly (keyof ResultRow)[];

const CELL_COLUMNS = [
  'result_id',
  'idx',
  'label',
  'test',
  'workload_fingerprint',
  'connections',
  'pipeline_depth',
  'pipeline_mode',
  'value_size_min',
  'value_size_max',
  'keyspace_size',
  'key_pattern',
  'rate_ops_per_sec',
  'trial_count',
  'ops_median',
  'ops_ci95_low',
  'ops_ci95_high',
  'ops_cv',
  'unstable',
  'min_us',
  'mean_us',
  'p50_us',
  'p90_us',
  'p95_us',
  'p99_us',
  'p999_us',
  'p9999_us',
  'max_us',
  'client_bound',
  'limited_by',
  'cross_check',
  'hit_ratio',
  'incomplete',
] as const satisfies readonly (keyof CellRow)[];

const WARNING_COLUMNS = [
  'result_id',
  'idx',
  'code',
  'cell_label',
  'message',
] as const satisfies readonly (keyof WarningRow)[];

// A row field with no column would be silently dropped: make that a compile error.
type Uncovered<Row, Cols extends readonly unknown[]> = Exclude<keyof Row, Cols[number]>;
const allCovered: [
  Uncovered<ResultRow, typeof RESULT_COLUMNS>,
  Uncovered<CellRow, typeof CELL_COLUMNS>,
  Uncovered<WarningRow, typeof WARNING_COLUMNS>,
  Uncovered<MeasurementRow, typeof MEASUREMENT_COLUMNS>,
] extends [never, never, never, never]
  ? true
  : false = true;
void allCovered;

export interface ResultKeyRow {
  id: string;
  kind: 'signed' | 'imported';
  key_fingerprint: string | null;
  retracted_at: string | null;
}

export interface SameHistogramRow {
  id: string;
  keyFingerprint: string | null;
  receivedAt: string;
  retractedAt: string | null;
}

/** A stored member of a run group, retracted or not (ingest/run-group.ts). */
export interface RunGroupMemberRow {
  id: string;
  keyFingerprint: string | null;
  idx: number | null;
  size: number | null;
  retractedAt: string | null;
}

export interface ListRow {
  id: string;
  kind: 'signed' | 'imported';
  receivedAt: string;
  retractedAt: string | null;
  startedAt: string | null;
  suiteId: string | null;
  suiteProfile: string | null;
  cpuModel: string | null;
  virtualizationKind: string | null;
  serverProduct: string | null;
  serverVersion: string | null;
  linkKind: string | null;
  warningCodes: string | null;
  cellCount: number;
  /** The run group this result belongs to (result.v1 `runGroup`), or null. */
  runGroupId: string | null;
  runGroupLabel: string | null;
  runGroupIndex: number | null;
}

/** The columns of a list row; shared by listResults and listRunGroup so the two cannot drift. */
const LIST_COLUMNS = `r.id, r.kind, r.received_at AS receivedAt, r.retracted_at AS retractedAt,
              r.started_at AS startedAt, r.suite_id AS suiteId, r.suite_profile AS suiteProfile,
              r.cpu_model AS cpuModel, r.virtualization_kind AS virtualizationKind,
              r.server_product AS serverProduct, r.server_version AS serverVersion,
              r.link_kind AS linkKind, r.warning_codes AS warningCodes,
              (SELECT count(*) FROM cells c WHERE c.result_id = r.id) AS cellCount,
              r.run_group_id AS runGroupId, r.run_group_label AS runGroupLabel,
              r.run_group_index AS runGroupIndex`;

export function prepareStatements(sqlite: Database.Database): Statements {
  return {
    insertResult: sqlite.prepare<ResultRow>(
      `${insert('results', RESULT_COLUMNS)} ON CONFLICT (id) DO NOTHING`,
    ),
    insertCell: sqlite.prepare<CellRow>(insert('cells', CELL_COLUMNS)),
    insertWarning: sqlite.prepare<WarningRow>(insert('warnings', WARNING_COLUMNS)),
    insertMeasurement: sqlite.prepare<MeasurementRow>(insertMeasurementSql()),
    // The covering index: a results row's columns are many, and an imported one keeps its document.
    sameHistogram: sqlite.prepare<[string, string], SameHistogramRow>(
      `SELECT r.id, r.key_fingerprint AS keyFingerprint, r.received_at AS receivedAt,
              r.retracted_at AS retractedAt
         FROM cell_measurements m JOIN results r INDEXED BY results_site_by_id ON r.id = m.result_id
        WHERE m.histogram_sha256 = ? AND m.result_id <> ?
        ORDER BY r.received_at, r.id LIMIT 1`,
    ),
    insertCopy: sqlite.prepare<{ result_id: string; copy_of: string; cell_label: string }>(
      'INSERT OR IGNORE INTO result_copies (result_id, copy_of, cell_label) VALUES (@result_id, @copy_of, @cell_label)',
    ),
    copyOf: sqlite.prepare<[string], { copy_of: string }>(
      'SELECT copy_of FROM result_copies WHERE result_id = ?',
    ),
    resultKey: sqlite.prepare<[string], ResultKeyRow>(
      'SELECT id, kind, key_fingerprint, retracted_at FROM results WHERE id = ?',
    ),
    insertEnvelope: sqlite.prepare<{ result_id: string; histograms: Buffer; body: Buffer }>(
      'INSERT INTO result_envelopes (result_id, histograms, body) VALUES (@result_id, @histograms, @body)',
    ),
    retract: sqlite.prepare<{ id: string; retractedAt: string; retraction: string }>(
      `UPDATE results SET retracted_at = @retractedAt, retraction = @retraction
       WHERE id = @id AND retracted_at IS NULL`,
    ),
    listResults: sqlite.prepare<{ limit: number; offset: number; includeRetracted: 0 | 1 }, ListRow>(
      `SELECT ${LIST_COLUMNS}
       FROM results r
       WHERE @includeRetracted = 1 OR r.retracted_at IS NULL
       ORDER BY r.received_at DESC, r.id
       LIMIT @limit OFFSET @offset`,
    ),
    // One key's members only: ingest refuses another key's result naming a stored group (run-group.ts),
    // and an index a member not retracted holds. Received order breaks a tie left by older rows.
    listRunGroup: sqlite.prepare<[string], ListRow>(
      `SELECT ${LIST_COLUMNS}
       FROM results r
       WHERE r.run_group_id = ? AND r.retracted_at IS NULL
       ORDER BY r.run_group_index, r.received_at, r.id`,
    ),
    runGroupMembers: sqlite.prepare<[string], RunGroupMemberRow>(
      `SELECT r.id, r.key_fingerprint AS keyFingerprint, r.run_group_index AS idx,
              r.run_group_size AS size, r.retracted_at AS retractedAt
         FROM results r
        WHERE r.run_group_id = ?
        ORDER BY r.received_at, r.id`,
    ),
    count: sqlite.prepare<[], { results: number; retracted: number; cells: number; warnings: number }>(
      `SELECT (SELECT count(*) FROM results) AS results,
              (SELECT count(*) FROM results WHERE retracted_at IS NOT NULL) AS retracted,
              (SELECT count(*) FROM cells) AS cells,
              (SELECT count(*) FROM warnings) AS warnings`,
    ),
    findCells: new Map(),
  };
}

function insert(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`;
}
