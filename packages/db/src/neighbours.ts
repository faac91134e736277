import type Database from 'better-sqlite3';
import type { BenchDb } from './open.js';

/**
 * Results like a given one, to compare it with: first those on the same CPU model and server version,
 * then the same CPU model with another version, then the same version on another CPU model; newest
 * first within each. Each step reads one index of migration 4 and stops at `limit` rows.
 */
export interface SimilarResult {
  id: string;
  /** What it shares with the result asked about. */
  shares: 'cpu and version' | 'cpu' | 'version';
  receivedAt: string;
  cpuModel: string | null;
  serverProduct: string | null;
  serverVersion: string | null;
}

/** Neighbours listed by default: a result page shows them all. */
export const DEFAULT_SIMILAR_LIMIT = 6;

const COLUMNS = `id, received_at AS receivedAt, cpu_model AS cpuModel, server_product AS serverProduct,
  server_version AS serverVersion`;

// `IS` compares nulls as equal: two results that both lack a server product still share it.
const SQL = {
  'cpu and version': `SELECT ${COLUMNS} FROM results INDEXED BY results_by_cpu_version
     WHERE cpu_model = @cpu AND server_product IS @product AND server_version = @version
       AND id <> @id AND retracted_at IS NULL
     ORDER BY received_at DESC, id DESC LIMIT @limit`,
  cpu: `SELECT ${COLUMNS} FROM results INDEXED BY results_by_cpu
     WHERE cpu_model = @cpu AND NOT (server_product IS @product AND server_version IS @version)
       AND id <> @id AND retracted_at IS NULL
     ORDER BY received_at DESC, id DESC LIMIT @limit`,
  version: `SELECT ${COLUMNS} FROM results INDEXED BY results_by_version
     WHERE server_product IS @product AND server_version = @version AND cpu_model IS NOT @cpu
       AND id <> @id AND retracted_at IS NULL
     ORDER BY received_at DESC, id DESC LIMIT @limit`,
} as const;

type Shares = SimilarResult['shares'];
type Row = Omit<SimilarResult, 'shares'>;
interface Me {
  id: string;
  cpu: string | null;
  product: string | null;
  version: string | null;
}

const ME_SQL = `SELECT id, cpu_model AS cpu, server_product AS product, server_version AS version
  FROM results INDEXED BY results_site_by_id WHERE id = ? AND retracted_at IS NULL`;

type Prepared = { me: Database.Statement<[string], Me> } & Record<
  Shares,
  Database.Statement<[Me & { limit: number }], Row>
>;
// Prepared once per database: a site build asks for every result's neighbours.
const prepared = new WeakMap<BenchDb, Prepared>();

export function similarResults(
  db: BenchDb,
  resultId: string,
  limit = DEFAULT_SIMILAR_LIMIT,
): SimilarResult[] {
  let st = prepared.get(db);
  if (!st) {
    const p = (sql: string) => db.sqlite.prepare(sql);
    st = {
      me: p(ME_SQL),
      'cpu and version': p(SQL['cpu and version']),
      cpu: p(SQL.cpu),
      version: p(SQL.version),
    } as Prepared;
    prepared.set(db, st);
  }
  const me = st.me.get(resultId);
  if (!me) return [];
  const out: SimilarResult[] = [];
  for (const shares of Object.keys(SQL) as Shares[]) {
    const left = limit - out.length;
    if (left <= 0) break;
    // An unknown CPU model or version is no common ground: "unknown CPU" names no machine.
    if (shares !== 'version' && me.cpu === null) continue;
    if (shares !== 'cpu' && me.version === null) continue;
    out.push(...st[shares].all({ ...me, limit: left }).map((r) => ({ ...r, shares })));
  }
  return out;
}

/** The query plan of each step, for a test to hold them to their indexes. */
export function explainSimilar(db: BenchDb): Record<Shares, string> {
  const plan = (sql: string) =>
    (
      db.sqlite
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all({ id: 'x', cpu: 'c', product: 'p', version: 'v', limit: 1 }) as { detail: string }[]
    )
      .map((r) => r.detail)
      .join('; ');
  return { 'cpu and version': plan(SQL['cpu and version']), cpu: plan(SQL.cpu), version: plan(SQL.version) };
}
