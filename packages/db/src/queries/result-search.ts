import type Database from 'better-sqlite3';
import type { BenchDb } from '../database/open.js';
import { FALLBACK_HEADLINE_CELLS, headlineCells } from '../ranking/headline-ranks.js';

/**
 * The read API's list of results: filtered, newest received first, paged by a keyset cursor.
 *
 * Cost is bounded per request, whatever the filter and however large the database: one request walks
 * at most SEARCH_SCAN_LIMIT entries of the covering index results_site_list (it holds every result
 * column a filter or the answer reads, so no document is touched), and for each, when a cell filter is
 * set, that result's cells by primary key. A selective filter may so answer fewer than `limit`
 * results, or none, with a `next` cursor: the caller follows `next` until it is null.
 */

/** A field left out matches anything. Cells match when every cell field set holds for one cell. */
export interface ResultFilter {
  /** The test as run, e.g. `GET` or `SET:GET 1:10`. */
  test?: string;
  pipelineDepth?: number;
  /** Cells whose values are exactly this many bytes. */
  valueSize?: number;
  connections?: number;
  serverProduct?: string;
  /** As the server reported it, e.g. `7.2.4`. */
  serverVersion?: string;
  /** The CPU model name: several machine kinds may share one (`machine` tells them apart). */
  cpuModel?: string;
  /** One machine kind: its key (packages/result identity.ts), as each result carries it. */
  machine?: string;
  virtualizationKind?: string;
}

export interface SearchOptions {
  /** @default DEFAULT_SEARCH_LIMIT */
  limit?: number;
  /** Where the previous page stopped: its `next`. */
  after?: SearchPosition;
  /** Index entries to walk at most. @default SEARCH_SCAN_LIMIT */
  scanLimit?: number;
}

/** A place in the order (received_at DESC, id DESC): what a cursor encodes. */
export interface SearchPosition {
  receivedAt: string;
  id: string;
}

export const DEFAULT_SEARCH_LIMIT = 50;
export const MAX_SEARCH_LIMIT = 200;
/** Index entries one request may walk: about 10 ms on this project's 2-core VM (docs/BENCHMARKS.md). */
export const SEARCH_SCAN_LIMIT = 2000;

export interface SearchCell {
  idx: number;
  label: string;
  test: string;
  workloadFingerprint: string | null;
  connections: number | null;
  pipelineDepth: number | null;
  valueSizeMin: number | null;
  valueSizeMax: number | null;
  opsPerSec: number | null;
  p50Us: number | null;
  p99Us: number | null;
  p999Us: number | null;
}

export interface SearchResult {
  id: string;
  kind: 'signed' | 'imported';
  receivedAt: string;
  startedAt: string | null;
  suiteId: string | null;
  suiteProfile: string | null;
  cpuModel: string | null;
  cpuCores: number | null;
  virtualizationKind: string | null;
  serverProduct: string | null;
  serverVersion: string | null;
  /** The machine kind and the configuration (identity.ts, migration 9); null where a row predates them. */
  machineKey: string | null;
  machineLabel: string | null;
  configKey: string | null;
  configLabel: string | null;
  configDefault: number | null;
  warningCodes: string[];
  /**
   * The cells that match the filter's cell fields, in run order; when none is set, the result's
   * headline cells (headline-ranks.ts: GET and SET, else its first two), so that a page stays small.
   */
  cells: SearchCell[];
}

export interface SearchPage {
  results: SearchResult[];
  /** Pass as `after` for the next page; null when the walk reached the oldest result. */
  next: SearchPosition | null;
}

const CELL_MATCH = `(@test IS NULL OR c.test = @test)
  AND (@pipelineDepth IS NULL OR c.pipeline_depth = @pipelineDepth)
  AND (@connections IS NULL OR c.connections = @connections)
  AND (@valueSize IS NULL OR (c.value_size_min = @valueSize AND c.value_size_max = @valueSize))`;

// The window is the next SEARCH_SCAN_LIMIT entries of the index after the cursor, whatever they hold;
// the filter applies within it. Row values compare (received_at, id) as one key: a keyset range.
const WINDOW_SQL = `SELECT id, kind, received_at AS receivedAt, retracted_at AS retractedAt, started_at AS startedAt,
         suite_id AS suiteId, suite_profile AS suiteProfile, cpu_model AS cpuModel, cpu_cores AS cpuCores,
         virtualization_kind AS virtualizationKind, server_product AS serverProduct,
         server_version AS serverVersion, warning_codes AS warningCodes, machine_key AS machineKey,
         machine_label AS machineLabel, config_key AS configKey, config_label AS configLabel,
         config_default AS configDefault
    FROM results INDEXED BY results_site_list
   WHERE (received_at, id) < (@atReceived, @atId)
   ORDER BY received_at DESC, id DESC
   LIMIT @scan`;

const SEARCH_SQL = `SELECT w.* FROM (${WINDOW_SQL}) w
   WHERE w.retractedAt IS NULL
     AND (@cpuModel IS NULL OR w.cpuModel = @cpuModel)
     AND (@machine IS NULL OR w.machineKey = @machine)
     AND (@serverProduct IS NULL OR w.serverProduct = @serverProduct)
     AND (@serverVersion IS NULL OR w.serverVersion = @serverVersion)
     AND (@virtualizationKind IS NULL OR w.virtualizationKind = @virtualizationKind)
     AND (@anyCell = 0 OR EXISTS (SELECT 1 FROM cells c WHERE c.result_id = w.id AND ${CELL_MATCH}))
   LIMIT @limit`;

/** The window's last entry when it is full: where the next request starts when this one found too few. */
const WINDOW_END_SQL = `SELECT receivedAt, id FROM (${WINDOW_SQL}) LIMIT 1 OFFSET @scan - 1`;

const CELLS_SQL = `SELECT c.idx, c.label, c.test, c.workload_fingerprint AS workloadFingerprint, c.connections,
         c.pipeline_depth AS pipelineDepth, c.value_size_min AS valueSizeMin, c.value_size_max AS valueSizeMax,
         c.ops_median AS opsPerSec, c.p50_us AS p50Us, c.p99_us AS p99Us, c.p999_us AS p999Us
    FROM cells c WHERE c.result_id = @id AND ${CELL_MATCH} ORDER BY c.idx`;

type SearchRow = Omit<SearchResult, 'cells' | 'warningCodes'> & {
  retractedAt: string | null;
  warningCodes: string | null;
};
type Params = Record<string, string | number | null> & { anyCell: 0 | 1 };
interface Prepared {
  search: Database.Statement<[Params], SearchRow>;
  windowEnd: Database.Statement<[Params], SearchPosition>;
  cells: Database.Statement<[Params], SearchCell>;
}
const prepared = new WeakMap<BenchDb, Prepared>();

function statements(db: BenchDb): Prepared {
  let st = prepared.get(db);
  if (!st) {
    const p = (sql: string) => db.sqlite.prepare(sql);
    st = {
      search: p(SEARCH_SQL),
      windowEnd: p(WINDOW_END_SQL),
      cells: p(CELLS_SQL),
    } as Prepared;
    prepared.set(db, st);
  }
  return st;
}

// Above any ISO timestamp: the first page starts before it.
const START: SearchPosition = { receivedAt: '~', id: '~' };

export function searchResults(db: BenchDb, filter: ResultFilter = {}, opts: SearchOptions = {}): SearchPage {
  const limit = opts.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)
    throw new RangeError(`invalid limit: ${limit} (an integer from 1 to ${MAX_SEARCH_LIMIT})`);
  const st = statements(db);
  const scan = opts.scanLimit ?? SEARCH_SCAN_LIMIT;
  if (!Number.isInteger(scan) || scan < 1) throw new RangeError(`invalid scanLimit: ${scan}`);
  const params = { ...bind(filter, opts.after ?? START), scan };
  const rows = st.search.all({ ...params, limit });
  const results = rows.map(({ retractedAt: _r, warningCodes, ...r }) => {
    const cells = st.cells.all({ ...params, id: r.id });
    return {
      ...r,
      warningCodes: warningCodes ? warningCodes.split(',') : [],
      cells: params.anyCell === 1 ? cells : headline(cells),
    };
  }) as SearchResult[];
  let next: SearchPosition | null = null;
  const last = results.at(-1);
  if (results.length === limit && last) next = { receivedAt: last.receivedAt, id: last.id };
  else next = st.windowEnd.get(params) ?? null;
  return { results, next };
}

/** An imported result's cells have no workload fingerprint, so no headline: its first cells stand in. */
function headline(cells: SearchCell[]): SearchCell[] {
  const named = headlineCells(cells);
  return named.length > 0 ? named : cells.slice(0, FALLBACK_HEADLINE_CELLS);
}

/** Every filter field, each bound by its own name and null where unset (the SQL reads `@name IS NULL OR`). */
const UNSET: Record<keyof ResultFilter, null> = {
  test: null,
  pipelineDepth: null,
  connections: null,
  valueSize: null,
  cpuModel: null,
  machine: null,
  serverProduct: null,
  serverVersion: null,
  virtualizationKind: null,
};

function bind(f: ResultFilter, after: SearchPosition): Params {
  const cell = [f.test, f.pipelineDepth, f.connections, f.valueSize];
  const fields = (Object.keys(UNSET) as (keyof ResultFilter)[]).map((k) => [k, f[k] ?? null]);
  return {
    atReceived: after.receivedAt,
    atId: after.id,
    ...Object.fromEntries(fields),
    anyCell: cell.some((v) => v !== undefined) ? 1 : 0,
  };
}

/** The plan of each statement, one line per step: a test holds them to their indexes. */
export function explainSearch(db: BenchDb): Record<'search' | 'windowEnd' | 'cells', string> {
  const params = { ...bind({ test: 'GET' }, START), limit: 1, id: 'x', scan: SEARCH_SCAN_LIMIT };
  const plan = (sql: string) =>
    (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[])
      .map((r) => r.detail)
      .join('; ');
  return { search: plan(SEARCH_SQL), windowEnd: plan(WINDOW_END_SQL), cells: plan(CELLS_SQL) };
}
