import type Database from 'better-sqlite3';
import type { BenchDb } from '../database/open.js';

/**
 * Results like a given one, to compare it with: first those on the same machine kind and server
 * version, then the same machine kind with another version, then the same version on another machine
 * kind; newest first within each. A machine kind is identity.ts's (migration 9): a CPU model name
 * alone is no common ground, since VMs of different CPUs share "AMD EPYC". Each step reads one index
 * of migration 11 and stops at `limit` rows.
 */
export interface SimilarResult {
  id: string;
  /** What it shares with the result asked about. */
  shares: 'machine and version' | 'machine' | 'version';
  receivedAt: string;
  cpuModel: string | null;
  /** The machine kind in a few words (identity.ts), or null for a row migration 9 could not read. */
  machineLabel: string | null;
  serverProduct: string | null;
  serverVersion: string | null;
}

/** Neighbours listed by default: a result page shows them all. */
export const DEFAULT_SIMILAR_LIMIT = 6;

const COLUMNS = `id, received_at AS receivedAt, cpu_model AS cpuModel, machine_label AS machineLabel,
  server_product AS serverProduct, server_version AS serverVersion`;

// `IS` compares nulls as equal: two results that both lack a server product still share it.
const SQL = {
  'machine and version': `SELECT ${COLUMNS} FROM results INDEXED BY results_by_machine_version
     WHERE machine_key = @machine AND server_product IS @product AND server_version = @version
       AND id <> @id AND retracted_at IS NULL
     ORDER BY received_at DESC, id DESC LIMIT @limit`,
  machine: `SELECT ${COLUMNS} FROM results INDEXED BY results_by_machine
     WHERE machine_key = @machine AND NOT (server_product IS @product AND server_version IS @version)
       AND id <> @id AND retracted_at IS NULL
     ORDER BY received_at DESC, id DESC LIMIT @limit`,
  version: `SELECT ${COLUMNS} FROM results INDEXED BY results_by_version_machine
     WHERE server_product IS @product AND server_version = @version AND machine_key IS NOT @machine
       AND id <> @id AND retracted_at IS NULL
     ORDER BY received_at DESC, id DESC LIMIT @limit`,
} as const;

type Shares = SimilarResult['shares'];
type Row = Omit<SimilarResult, 'shares'>;
interface Me {
  id: string;
  machine: string | null;
  product: string | null;
  version: string | null;
}

const ME_SQL = `SELECT id, machine_key AS machine, server_product AS product, server_version AS version
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
      'machine and version': p(SQL['machine and version']),
      machine: p(SQL.machine),
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
    // An unread machine kind or an unknown version is no common ground.
    if (shares !== 'version' && me.machine === null) continue;
    if (shares !== 'machine' && me.version === null) continue;
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
        .all({ id: 'x', machine: 'm', product: 'p', version: 'v', limit: 1 }) as { detail: string }[]
    )
      .map((r) => r.detail)
      .join('; ');
  return {
    'machine and version': plan(SQL['machine and version']),
    machine: plan(SQL.machine),
    version: plan(SQL.version),
  };
}
