import { standingReason } from '@redis-benchdb/result';
import type { BenchDb } from '../database/open.js';
import { DISPUTED_R, SIGNER_OF_R } from '../database/result-sql.js';
import { resultStandings } from '../ranking/standing.js';
import type { ReceivedRange } from '../store/envelopes.js';
import { readDocument, readEnvelope } from '../store/envelopes.js';
import { exportRows } from './results.js';

/**
 * The queries the site's build runs. They read every listed result once, so they iterate rather
 * than page, and they never return a retracted result: the site must not show one.
 */

/** What the site's lists, filters and indexes need of a result, without parsing its document. */
export interface SiteResultRow {
  id: string;
  kind: 'signed' | 'imported';
  receivedAt: string;
  startedAt: string | null;
  suiteId: string | null;
  suiteProfile: string | null;
  cpuModel: string | null;
  cpuCores: number | null;
  cpuThreads: number | null;
  virtualizationKind: string | null;
  hypervisor: string | null;
  serverProduct: string | null;
  serverVersion: string | null;
  allocator: string | null;
  ioThreads: number | null;
  persistenceOn: 0 | 1 | null;
  linkKind: string | null;
  /** Comma-separated warning codes, or null. */
  warningCodes: string | null;
  keyFingerprint: string | null;
  /** Who the key signs for (migration 7): the key itself unless it was assigned a signer; null for an imported result. */
  signer: string | null;
  runGroupId: string | null;
  runGroupLabel: string | null;
  runGroupIndex: number | null;
  cellCount: number;
  /** The earlier result of the same key whose measurements this one repeats (copies.ts), or null. */
  copyOf: string | null;
  /** The CPU's cache sizes, "L1d/L2/L3" in KiB (migration 8); null where unknown. */
  cpuCaches: string | null;
  /** Machine kind and configuration (migration 9, packages/result identity.ts); null only for a row it could not read. */
  machineKey: string | null;
  machineLabel: string | null;
  configKey: string | null;
  configLabel: string | null;
  configDefault: 0 | 1 | null;
  incomplete: 0 | 1 | null;
}

const SITE_ROW_SQL = `
  SELECT r.id, r.kind, r.received_at AS receivedAt, r.started_at AS startedAt, r.suite_id AS suiteId,
         r.suite_profile AS suiteProfile, r.cpu_model AS cpuModel, r.cpu_cores AS cpuCores,
         r.cpu_threads AS cpuThreads, r.virtualization_kind AS virtualizationKind, r.hypervisor,
         r.server_product AS serverProduct, r.server_version AS serverVersion, r.allocator,
         r.io_threads AS ioThreads, r.persistence_on AS persistenceOn, r.link_kind AS linkKind,
         r.warning_codes AS warningCodes, r.key_fingerprint AS keyFingerprint,
         ${SIGNER_OF_R} AS signer,
         r.run_group_id AS runGroupId, r.run_group_label AS runGroupLabel, r.run_group_index AS runGroupIndex,
         r.cpu_caches AS cpuCaches, r.machine_key AS machineKey, r.machine_label AS machineLabel,
         r.config_key AS configKey, r.config_label AS configLabel, r.config_default AS configDefault,
         r.incomplete,
         (SELECT count(*) FROM cells c WHERE c.result_id = r.id) AS cellCount,
         (SELECT x.copy_of FROM result_copies x WHERE x.result_id = r.id) AS copyOf
    FROM results r
   WHERE r.retracted_at IS NULL`;

/** Every listed result, newest received first (ties by id, so the order is stable between builds). */
const LIST_SQL = `${SITE_ROW_SQL} ORDER BY r.received_at DESC, r.id`;
// SQLite would pick the primary key's index, then read the row (and the documents' pages before its
// columns): name the covering one.
const BY_ID_SQL = `${SITE_ROW_SQL.replace('FROM results r', 'FROM results r INDEXED BY results_site_by_id')} AND r.id = ?`;

export function* iterateSiteResults(db: BenchDb): Generator<SiteResultRow> {
  yield* db.sqlite.prepare<[], SiteResultRow>(LIST_SQL).iterate();
}

/** A stored result as the site renders it: the record itself, for the site to read as it needs. */
export interface SiteResultRecord {
  row: SiteResultRow;
  /** The signed envelope as verified (canonical, RFC 8785), or null for an imported result. */
  envelope: string | null;
  /**
   * The stored document: result.v1 (signed) or imported.v1. Read on demand: a signed result's page is
   * built from its envelope's payload, and reading the document too would double the bytes read.
   */
  document: () => string;
}

/** One listed result, or null when it is unknown or retracted. */
export function getSiteResult(db: BenchDb, id: string): SiteResultRecord | null {
  const row = db.sqlite.prepare<[string], SiteResultRow>(BY_ID_SQL).get(id);
  if (!row) return null;
  const envelope = row.kind === 'signed' ? readEnvelope(db, id) : null;
  const document = () => readDocument(db, id)!;
  return { row, envelope, document };
}

/** A cell's headline numbers with its result's descriptive columns: the home page and the over-time charts. */
export interface SiteCellRow {
  resultId: string;
  kind: 'signed' | 'imported';
  receivedAt: string;
  startedAt: string | null;
  cpuModel: string | null;
  virtualizationKind: string | null;
  serverProduct: string | null;
  serverVersion: string | null;
  label: string;
  test: string;
  workloadFingerprint: string | null;
  opsMedian: number | null;
  opsCi95Low: number | null;
  opsCi95High: number | null;
  p99Us: number | null;
  unstable: 0 | 1 | null;
  warningCodes: string | null;
  keyFingerprint: string | null;
  /** Who signed it (its key's signer, else the key): a headline counts signers, not results or keys (null for an imported result). */
  signer: string | null;
  /** The earlier result of the same key this one copies (copies.ts): counted once, as that one. */
  copyOf: string | null;
  /** The warnings that keep this cell from a verdict, comma-separated (cell_measurements), or null. */
  noVerdict: string | null;
  machineKey: string | null;
  machineLabel: string | null;
  configKey: string | null;
  configLabel: string | null;
  configDefault: 0 | 1 | null;
  /** The run's or the cell's: either makes the figure a part. */
  incomplete: 0 | 1 | null;
  crossCheck: string | null;
  clientBound: 0 | 1 | null;
  runGroupId: string | null;
  suiteProfile: string | null;
  /**
   * Why the corroboration rule holds the cell's result out of every summary (ranking/standing.ts):
   * PROVISIONAL or OUTLIER; null when it is admitted (and for an imported result, which has no standing).
   */
  held?: 'PROVISIONAL' | 'OUTLIER' | null;
}

/**
 * Listed cells with one of these workload fingerprints, newest result first; not a cell whose
 * replies were mostly errors (warning ERRORS): its ops/s are how fast the server refused.
 */
export function cellsByWorkload(db: BenchDb, fingerprints: readonly string[]): SiteCellRow[] {
  if (fingerprints.length === 0) return [];
  const standings = resultStandings(db);
  return db.sqlite
    .prepare<string[], Omit<SiteCellRow, 'held'>>(cellsSql(fingerprints.length))
    .all(...fingerprints)
    .map((c) => ({ ...c, held: standingReason(standings.get(c.resultId)) }));
}

function cellsSql(n: number): string {
  return `SELECT c.result_id AS resultId, r.kind, r.received_at AS receivedAt, r.started_at AS startedAt,
              r.cpu_model AS cpuModel, r.virtualization_kind AS virtualizationKind,
              r.server_product AS serverProduct, r.server_version AS serverVersion, c.label, c.test,
              c.workload_fingerprint AS workloadFingerprint, c.ops_median AS opsMedian,
              c.ops_ci95_low AS opsCi95Low, c.ops_ci95_high AS opsCi95High, c.p99_us AS p99Us,
              c.unstable, r.warning_codes AS warningCodes, r.key_fingerprint AS keyFingerprint,
              r.machine_key AS machineKey, r.machine_label AS machineLabel, r.config_key AS configKey,
              r.config_label AS configLabel, r.config_default AS configDefault,
              max(r.incomplete, coalesce(c.incomplete, 0)) AS incomplete, c.cross_check AS crossCheck,
              c.client_bound AS clientBound, r.run_group_id AS runGroupId, r.suite_profile AS suiteProfile,
              ${SIGNER_OF_R} AS signer,
              (SELECT x.copy_of FROM result_copies x WHERE x.result_id = c.result_id) AS copyOf,
              (SELECT m.no_verdict FROM cell_measurements m
                WHERE m.result_id = c.result_id AND m.idx = c.idx) AS noVerdict
         FROM cells c JOIN results r ON r.id = c.result_id
        WHERE r.retracted_at IS NULL AND NOT ${DISPUTED_R} AND c.workload_fingerprint IN (${Array(n).fill('?').join(', ')})
          AND NOT EXISTS (SELECT 1 FROM warnings w
                           WHERE w.result_id = c.result_id AND w.code = 'ERRORS' AND w.cell_label = c.label)
        ORDER BY r.received_at DESC, r.id, c.idx`;
}

/**
 * The workload fingerprint most results share for a cell label of a suite: "the standard-v1 GET".
 * Null when no listed result of that suite has the label.
 */
export function commonWorkload(db: BenchDb, suiteId: string, label: string): string | null {
  const row = db.sqlite.prepare<[string, string], { fp: string }>(COMMON_SQL).get(suiteId, label);
  return row?.fp ?? null;
}

const COMMON_SQL = `SELECT c.workload_fingerprint AS fp
         FROM cells c JOIN results r ON r.id = c.result_id
        WHERE r.retracted_at IS NULL AND r.suite_id = ? AND c.label = ? AND c.workload_fingerprint IS NOT NULL
        GROUP BY c.workload_fingerprint ORDER BY count(*) DESC, c.workload_fingerprint LIMIT 1`;

/**
 * SQLite's plan for each of the site's queries that must not read documents (migration 3's covering
 * indexes): a test holds them to it, since a new column in a query silently brings the cost back.
 */
export function siteQueryPlans(db: BenchDb): Record<'list' | 'byId' | 'common' | 'cells', string> {
  const plan = (sql: string, ...args: unknown[]) =>
    (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[])
      .map((r) => r.detail)
      .join('; ');
  return {
    list: plan(LIST_SQL),
    byId: plan(BY_ID_SQL, 'x'),
    common: plan(COMMON_SQL, 'x', 'y'),
    cells: plan(cellsSql(1), 'x'),
  };
}

/**
 * The open-data export as JSON Lines text, one listed result per line: what `exportResults` yields,
 * serialised without parsing. At 10,000 results of half a megabyte each, parsing and re-serialising
 * every envelope would cost a minute of the site's build; instead the stored text goes out as it is.
 * JSON forbids raw line breaks inside strings, so the breaks of a pretty-printed envelope are all
 * insignificant whitespace and can become spaces: the line still parses to the same value, and its
 * payload string (what the signature covers) is untouched.
 */
export function* exportJsonlLines(db: BenchDb, received?: ReceivedRange): Generator<string> {
  for (const r of exportRows(db, received)) {
    const body = r.text.replace(/[\r\n]+/g, ' ');
    yield `{"id":${JSON.stringify(r.id)},"kind":"${r.kind}","${r.kind === 'signed' ? 'envelope' : 'document'}":${body}}\n`;
  }
}
