import { corroborate, type Standing } from '@redis-benchdb/result';
import type { BenchDb } from '../database/open.js';
import { DISPUTED_R, SIGNER_OF_R } from '../database/result-sql.js';
import { changeStamp } from '../database/state.js';
import { ADMITTED_CELL_SQL } from './admitted-sql.js';

/**
 * Every signed result's standing (packages/result corroboration.ts): admitted, provisional or an
 * outlier. Every summary reads it from here: the cohorts that rank (cohort.ts, count-rank.ts,
 * rank-index.ts), the site's cells (queries/site.ts) and so the headline, version and explorer views.
 *
 * The evidence is each listed, undisputed, signed result's admitted cells (admitted-sql.ts, not
 * mostly errors), by workload fingerprint, with its kind and configuration; imported results have no
 * workload fingerprint and no standing. It is read once and kept until the database changes: another
 * connection's commit moves SQLite's data_version, this connection's own writes total_changes().
 *
 * The anchor (the rule's "project key") is every key the operator has named a signer for (key_signers,
 * migration 7): the project's data keys (`--project-keys`, db:build), and nothing else unless an
 * operator names a submitter it knows. Naming a key is the operator vouching for it; no submission can.
 */
/** Every kind (@all = 1), or one machine kind and configuration: what a new result can change. */
const ONE_KIND = `(@all = 1 OR (coalesce(r.machine_key, '') = @m AND coalesce(r.config_key, '') = @c))`;

const EVIDENCE_SQL = `
  SELECT r.id AS resultId, ${SIGNER_OF_R} AS signer, r.machine_key || char(0) || r.config_key AS kindKey,
         EXISTS (SELECT 1 FROM result_copies x WHERE x.result_id = r.id) AS copy,
         c.workload_fingerprint AS fp, max(c.ops_median) AS ops
    FROM results r JOIN cells c ON c.result_id = r.id
   WHERE r.kind = 'signed' AND r.retracted_at IS NULL AND NOT ${DISPUTED_R}
     AND r.machine_key IS NOT NULL AND r.config_key IS NOT NULL
     AND c.workload_fingerprint IS NOT NULL AND c.ops_median > 0 AND ${ADMITTED_CELL_SQL}
     AND NOT EXISTS (SELECT 1 FROM warnings w INDEXED BY warnings_by_cell
                      WHERE w.result_id = c.result_id AND w.cell_label = c.label AND w.code = 'ERRORS')
     AND ${ONE_KIND}
   GROUP BY r.id, c.workload_fingerprint`;

/** Signed results with no admitted cell at all: judged on nothing, so provisional unless a project key signed them. */
const SIGNED_SQL = `SELECT r.id AS resultId, ${SIGNER_OF_R} AS signer,
         EXISTS (SELECT 1 FROM key_signers s WHERE s.key_fingerprint = r.key_fingerprint) AS named,
         coalesce(r.machine_key, '') || char(0) || coalesce(r.config_key, '') AS kindKey
    FROM results r WHERE r.kind = 'signed' AND r.retracted_at IS NULL AND NOT ${DISPUTED_R} AND ${ONE_KIND}`;

interface EvidenceRow {
  resultId: string;
  signer: string;
  kindKey: string;
  copy: 0 | 1;
  fp: string;
  ops: number;
}

interface Cached {
  version: string;
  standings: Map<string, Standing>;
}
const cache = new WeakMap<BenchDb, Cached>();

type Scope = { all: 1; m: ''; c: '' } | { all: 0; m: string; c: string };

/** The rule's inputs in a scope: every signed result, or one kind's. */
function inputsOf(db: BenchDb, scope: Scope): Parameters<typeof corroborate>[0] {
  const inputs = new Map<
    string,
    Parameters<typeof corroborate>[0][number] & { figures: Map<string, number> }
  >();
  type SignedRow = Omit<EvidenceRow, 'copy' | 'fp' | 'ops'> & { named: 0 | 1 };
  for (const { named, ...r } of db.sqlite.prepare<[Scope], SignedRow>(SIGNED_SQL).iterate(scope))
    inputs.set(r.resultId, { ...r, project: named === 1, copy: false, figures: new Map() });
  for (const row of db.sqlite.prepare<[Scope], EvidenceRow>(EVIDENCE_SQL).iterate(scope)) {
    const input = inputs.get(row.resultId);
    if (!input) continue;
    input.kindKey = row.kindKey;
    input.copy = row.copy === 1;
    input.figures.set(row.fp, row.ops);
  }
  return [...inputs.values()];
}

/** The standing of every listed signed result, by id. */
export function resultStandings(db: BenchDb): Map<string, Standing> {
  const version = changeStamp(db);
  const had = cache.get(db);
  if (had && had.version === version) return had.standings;
  const standings = corroborate(inputsOf(db, { all: 1, m: '', c: '' }));
  cache.set(db, { version, standings });
  return standings;
}

/**
 * This connection just stored `resultId`: judge its machine kind and configuration again, and keep
 * every other kind's standings. A result is judged only within its kind (corroboration.ts), so a
 * submission changes no other kind's; reading every kind again took one pass over all cells per
 * submission. Anything else (another connection's commit, no standings read yet) reads them all.
 */
export function refreshStandingsAfterStoring(db: BenchDb, resultId: string): void {
  const had = cache.get(db);
  const dataVersion = String(db.sqlite.pragma('data_version', { simple: true }));
  if (!had || had.version.split(':')[0] !== dataVersion) return;
  const kind = db.sqlite
    .prepare<[string], { m: string; c: string }>(
      "SELECT coalesce(machine_key, '') AS m, coalesce(config_key, '') AS c FROM results WHERE id = ?",
    )
    .get(resultId);
  if (!kind) return;
  const inputs = inputsOf(db, { all: 0, ...kind });
  const standings = new Map(had.standings);
  for (const [id, s] of corroborate(inputs)) standings.set(id, s);
  cache.set(db, { version: changeStamp(db), standings });
}

/**
 * The standings of the results named: read with every result's when those are read already, else
 * judged within their own machine kinds and configurations alone, which is where a result is judged
 * (corroboration.ts; refreshStandingsAfterStoring). One new result's page and its environment's noise
 * then read a few hundred results' cells, not every result's (11 s at 50,000 results).
 */
export function standingsOfResults(db: BenchDb, ids: Iterable<string>): Map<string, Standing> {
  const had = cache.get(db);
  if (had && had.version === changeStamp(db)) return had.standings;
  const kindOf = db.sqlite.prepare<[string], { m: string; c: string }>(
    "SELECT coalesce(machine_key, '') AS m, coalesce(config_key, '') AS c FROM results WHERE id = ?",
  );
  const kinds = new Map<string, { m: string; c: string }>();
  for (const id of ids) {
    const k = kindOf.get(id);
    if (k) kinds.set(`${k.m}\0${k.c}`, k);
  }
  const out = new Map<string, Standing>();
  for (const k of kinds.values())
    for (const [id, s] of corroborate(inputsOf(db, { all: 0, ...k }))) out.set(id, s);
  return out;
}

const heldJson = new WeakMap<Map<string, Standing>, string>();

/** The ids of the results no summary may take (provisional and outliers): what the ranking queries leave out. */
export function heldResults(db: BenchDb): string[] {
  return [...resultStandings(db)].filter(([, s]) => s.status !== 'admitted').map(([id]) => id);
}

/** heldResults as a JSON array, the ranking queries' @held parameter (json_each). */
export function heldResultsJson(db: BenchDb): string {
  const standings = resultStandings(db);
  let json = heldJson.get(standings);
  if (json === undefined) {
    json = JSON.stringify(heldResults(db));
    heldJson.set(standings, json);
  }
  return json;
}

/** One result's standing; undefined for an imported, unknown or retracted result. */
export function standingOf(db: BenchDb, resultId: string): Standing | undefined {
  return resultStandings(db).get(resultId);
}
