import type { BenchDb } from '../database/open.js';

/** Which cells to find; a field left out matches anything. Retracted results are never included. */
export interface CellFilter {
  /** The test as run, e.g. `GET` or `SET:GET 1:10`. */
  test?: string;
  connections?: number;
  pipelineDepth?: number;
  pipelineMode?: 'window' | 'batch';
  virtualizationKind?: 'bare-metal' | 'vm' | 'container' | 'vm+container';
  serverProduct?: string;
  /** 7 for "Redis 7.x". */
  serverVersionMajor?: number;
  workloadFingerprint?: string;
  /** Only cells no warning applies to: none for the whole run, none for this cell. */
  noWarnings?: boolean;
}

/** A cell and its workload as the cells table flattens them; the site's CellView has them too. */
export interface CellWorkloadColumns {
  idx: number;
  label: string;
  test: string;
  /** Equal fingerprints ran the same workload: the only cells the site compares. */
  workloadFingerprint: string | null;
  connections: number | null;
  pipelineDepth: number | null;
  pipelineMode: string | null;
  valueSizeMin: number | null;
  valueSizeMax: number | null;
  keyspaceSize: number | null;
  keyPattern: string | null;
  rateOpsPerSec: number | null;
}

export interface FoundCell extends CellWorkloadColumns {
  resultId: string;
  trialCount: number | null;
  opsMedian: number | null;
  opsCi95Low: number | null;
  opsCi95High: number | null;
  opsCv: number | null;
  unstable: boolean | null;
  p50Us: number | null;
  p90Us: number | null;
  p99Us: number | null;
  p999Us: number | null;
  p9999Us: number | null;
  maxUs: number | null;
  clientBound: boolean | null;
  limitedBy: string | null;
  crossCheck: string | null;
  hitRatio: number | null;
  incomplete: boolean | null;
  /** The result the cell belongs to: where the figure came from. */
  result: {
    kind: 'signed' | 'imported';
    receivedAt: string;
    startedAt: string | null;
    suiteId: string | null;
    suiteProfile: string | null;
    environmentFingerprint: string | null;
    cpuModel: string | null;
    cpuCores: number | null;
    virtualizationKind: string | null;
    serverProduct: string | null;
    serverVersion: string | null;
    serverVersionMajor: number | null;
    serverVersionMinor: number | null;
    ioThreads: number | null;
    persistenceOn: boolean | null;
    linkKind: string | null;
    warningCodes: string[];
  };
}

/** Filter field → SQL column: only these names ever reach the SQL text; values are bound. */
const COLUMNS = {
  test: 'c.test',
  connections: 'c.connections',
  pipelineDepth: 'c.pipeline_depth',
  pipelineMode: 'c.pipeline_mode',
  virtualizationKind: 'r.virtualization_kind',
  serverProduct: 'r.server_product',
  serverVersionMajor: 'r.server_version_major',
  workloadFingerprint: 'c.workload_fingerprint',
} as const satisfies Record<Exclude<keyof CellFilter, 'noWarnings'>, string>;

type Field = keyof typeof COLUMNS;

const SELECT = `SELECT c.result_id AS resultId, c.idx, c.label, c.test, c.workload_fingerprint AS workloadFingerprint,
  c.connections, c.pipeline_depth AS pipelineDepth, c.pipeline_mode AS pipelineMode,
  c.value_size_min AS valueSizeMin, c.value_size_max AS valueSizeMax, c.keyspace_size AS keyspaceSize,
  c.key_pattern AS keyPattern, c.rate_ops_per_sec AS rateOpsPerSec, c.trial_count AS trialCount,
  c.ops_median AS opsMedian, c.ops_ci95_low AS opsCi95Low, c.ops_ci95_high AS opsCi95High, c.ops_cv AS opsCv,
  c.unstable, c.p50_us AS p50Us, c.p90_us AS p90Us, c.p99_us AS p99Us, c.p999_us AS p999Us,
  c.p9999_us AS p9999Us, c.max_us AS maxUs, c.client_bound AS clientBound,
  c.limited_by AS limitedBy, c.cross_check AS crossCheck, c.hit_ratio AS hitRatio, c.incomplete,
  r.kind AS r_kind, r.received_at AS r_receivedAt, r.started_at AS r_startedAt, r.suite_id AS r_suiteId,
  r.suite_profile AS r_suiteProfile, r.environment_fingerprint AS r_environmentFingerprint,
  r.cpu_model AS r_cpuModel, r.cpu_cores AS r_cpuCores, r.virtualization_kind AS r_virtualizationKind,
  r.server_product AS r_serverProduct, r.server_version AS r_serverVersion,
  r.server_version_major AS r_serverVersionMajor, r.server_version_minor AS r_serverVersionMinor,
  r.io_threads AS r_ioThreads, r.persistence_on AS r_persistenceOn, r.link_kind AS r_linkKind,
  r.warning_codes AS r_warningCodes
FROM cells c JOIN results r ON r.id = c.result_id`;

const NO_WARNINGS = `NOT EXISTS (SELECT 1 FROM warnings w
  WHERE w.result_id = c.result_id AND (w.cell_label IS NULL OR w.cell_label = c.label))`;

/** Cells matching the filter, fastest first, each with its result's description. */
export function findCells(db: BenchDb, filter: CellFilter = {}): FoundCell[] {
  const { statement, params } = prepared(db, filter);
  return (statement.all(params) as Record<string, unknown>[]).map(toFoundCell);
}

/** EXPLAIN QUERY PLAN of findCells for this filter, one line per step: to check an index serves it. */
export function explainFindCells(db: BenchDb, filter: CellFilter = {}): string[] {
  const { sql, params } = build(filter);
  return (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map(
    (r) => r.detail,
  );
}

/** One statement per filter shape (which fields are set), prepared on first use and kept. */
function prepared(db: BenchDb, filter: CellFilter) {
  const { sql, params, shape } = build(filter);
  let statement = db.statements.findCells.get(shape);
  if (!statement) {
    statement = db.sqlite.prepare<Record<string, unknown>, unknown>(sql);
    db.statements.findCells.set(shape, statement);
  }
  return { statement, params };
}

function build(filter: CellFilter) {
  const fields = (Object.keys(COLUMNS) as Field[]).filter((f) => filter[f] !== undefined);
  const where = ['r.retracted_at IS NULL', ...fields.map((f) => `${COLUMNS[f]} = @${f}`)];
  if (filter.noWarnings) where.push(NO_WARNINGS);
  const params = Object.fromEntries(fields.map((f) => [f, filter[f]]));
  const sql = `${SELECT} WHERE ${where.join(' AND ')} ORDER BY c.ops_median DESC, c.result_id, c.idx`;
  return { sql, params, shape: `${fields.join(',')}|${filter.noWarnings ? 1 : 0}` };
}

function toFoundCell(row: Record<string, unknown>): FoundCell {
  const cell: Record<string, unknown> = {};
  const result: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k.startsWith('r_')) result[k.slice(2)] = v;
    else cell[k] = v;
  }
  for (const k of ['unstable', 'clientBound', 'incomplete']) cell[k] = bool(cell[k]);
  result.persistenceOn = bool(result.persistenceOn);
  result.warningCodes = result.warningCodes ? String(result.warningCodes).split(',') : [];
  return { ...cell, result } as unknown as FoundCell;
}

function bool(v: unknown): boolean | null {
  return v === null || v === undefined ? null : v === 1;
}
