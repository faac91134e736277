import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  adHocCells,
  type BenchDb,
  cellsByWorkload,
  commonWorkload,
  defaultDatabasePath,
  getSiteResult,
  iterateSiteResults,
  openDatabase,
  type SiteCellRow,
  type SiteResultRow,
} from '@redis-benchdb/db';
import { type ResultView, toResultView } from '../model/model.js';
import { slug } from '../routes/routes.js';
import { safeStrings, safeText } from '../text/text.js';

/**
 * The build's one read-only connection. The path is the CLI's: a `redis-benchdb run` stores its
 * result where this reads, so the new result is on the next local build. REDIS_BENCHDB_DB overrides
 * it (tests, bench:site). A missing file builds an empty site and says how to fill it.
 */
let opened: BenchDb | null = null;
export function database(): BenchDb {
  if (opened) return opened;
  const path = process.env.REDIS_BENCHDB_DB || defaultDatabasePath();
  if (!existsSync(path)) {
    console.warn(
      `[redis-benchdb site] no database at ${path}: building an empty site. Run \`pnpm -s redis-benchdb run\` (measure) or \`pnpm db:build\` (imported results), or set REDIS_BENCHDB_DB.`,
    );
    opened = openDatabase(':memory:');
  } else opened = openDatabase(path, { readonly: true });
  return opened;
}

let rows: SiteResultRow[] | null = null;
/** Every listed result, newest first. */
export function allResults(): SiteResultRow[] {
  // The list columns (CPU model, version, labels) reach every page and chart: cleaned like a view's.
  rows ??= [...iterateSiteResults(database())].map((r) => safeStrings(r));
  return rows;
}

/** Views are parsed and verified once per build, whichever pages ask. */
const views = new Map<string, ResultView>();
export function resultView(id: string): ResultView {
  let v = views.get(id);
  if (!v) {
    const rec = getSiteResult(database(), id);
    if (!rec) throw new Error(`result ${id} is not in the database (or was retracted)`);
    v = toResultView(rec);
    // Result pages render once each: keep the cache small so 10,000 results do not sit in memory.
    if (views.size > 2000) views.clear();
    views.set(id, v);
  }
  return v;
}

/**
 * A result's view, or null where none can be made: a stored row an older build let through whose cell
 * has no figures. Its own page is left out and named in the build report (prepare.ts); a summary that
 * only reads facts of many results (how they were pinned) goes on without it rather than fail the build.
 */
export function readableView(id: string): ResultView | null {
  try {
    return resultView(id);
  } catch {
    return null;
  }
}

export interface Bucket {
  slug: string;
  title: string;
  rows: SiteResultRow[];
}

function bucket(key: (r: SiteResultRow) => (string | null)[], title: (r: SiteResultRow) => string): Bucket[] {
  const m = new Map<string, Bucket>();
  for (const r of allResults()) {
    const s = slug(...key(r));
    const b = m.get(s);
    if (b) b.rows.push(r);
    else m.set(s, { slug: s, title: title(r), rows: [r] });
  }
  return [...m.values()].sort((a, b) => b.rows.length - a.rows.length || a.title.localeCompare(b.title));
}

let machineBuckets: Bucket[] | null = null;
const machineSlugs = new Map<string, string>();
/**
 * Machine kinds as packages/result's identity.ts defines them (db migration 9): CPU vendor, model,
 * family/model/stepping, cores, threads, caches, virtualization and container all equal. Every view
 * groups machines by this, so no page pools what another splits. The slug is the label's words
 * with a short hash of the key, since two kinds may read alike once shortened.
 */
export function machines(): Bucket[] {
  if (machineBuckets) return machineBuckets;
  machineBuckets = bucket(
    (r) => [machineSlugPart(r)],
    (r) =>
      r.machineLabel ??
      `${r.cpuModel ?? 'unknown CPU'} · ${r.virtualizationKind ?? 'virtualization unknown'}`,
  );
  for (const b of machineBuckets) for (const r of b.rows) machineSlugs.set(r.id, b.slug);
  return machineBuckets;
}

function machineSlugPart(
  r: Pick<SiteResultRow, 'machineKey' | 'machineLabel' | 'cpuModel' | 'virtualizationKind'>,
) {
  const key = r.machineKey ?? `${r.cpuModel}|${r.virtualizationKind}`;
  const words = (r.machineLabel ?? r.cpuModel ?? 'unknown')
    .split(' · ')[0]!
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  // Already clean, so slug() keeps it as it is.
  return `${words || 'cpu'}-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
}

/** The machine kind's slug for any row that carries its key (a result row or a cell row). */
export function machineSlugOfKey(
  r: Pick<SiteResultRow, 'machineKey' | 'machineLabel' | 'cpuModel' | 'virtualizationKind'>,
): string {
  return machineSlugPart(r);
}

let versionBuckets: Bucket[] | null = null;
export function versions(): Bucket[] {
  versionBuckets ??= bucket(
    (r) => [r.serverProduct, r.serverVersion],
    (r) => `${r.serverProduct ?? 'unknown server'} ${r.serverVersion ?? '(version unknown)'}`,
  );
  return versionBuckets;
}

/** The machine page of a listed result (see machines()). */
export function machineSlugOf(r: {
  id: string;
  cpuModel: string | null;
  virtualizationKind: string | null;
}): string {
  machines();
  return machineSlugs.get(r.id) ?? slug(r.cpuModel, r.virtualizationKind);
}
export function versionSlugOf(r: { serverProduct: string | null; serverVersion: string | null }): string {
  return slug(r.serverProduct, r.serverVersion);
}

/**
 * Results that share a run group, in group order: a version or configuration comparison. Keyed by
 * the group id alone because a stored group id has exactly one signer: ingest refuses another key's
 * result naming it, and a trigger keeps it so (packages/db run-group.ts, migration 12).
 */
export function runGroups(): { id: string; rows: SiteResultRow[] }[] {
  const m = new Map<string, SiteResultRow[]>();
  for (const r of allResults()) if (r.runGroupId) m.set(r.runGroupId, [...(m.get(r.runGroupId) ?? []), r]);
  return [...m.entries()].map(([id, rs]) => ({
    id,
    rows: rs.sort((a, b) => (a.runGroupIndex ?? 0) - (b.runGroupIndex ?? 0)),
  }));
}

/** The headline workloads: standard-v1's baseline GET and SET, as most results ran them. */
export const HEADLINE_SUITE = 'standard-v1';
export const HEADLINE_LABELS = ['GET', 'SET'] as const;

let headline: SiteCellRow[] | null = null;
export function headlineCells(): SiteCellRow[] {
  if (headline) return headline;
  headline = cellsOfLabels(HEADLINE_LABELS);
  return headline;
}

/** The cells of the suite's most common workload under each label. */
function cellsOfLabels(labels: readonly string[]): SiteCellRow[] {
  const fps = labels
    .map((l) => commonWorkload(database(), HEADLINE_SUITE, l))
    .filter((f): f is string => f !== null);
  return cellsByWorkload(database(), fps).map((c) => safeStrings(c));
}

/**
 * The version comparison's own workloads (standard-v1's compare profile, issue 29): GET and SET at
 * pipeline 10 with 16-byte values, the cells where the server, not the client, is the limit on a
 * 2-vCPU same-host VM. The baseline's GET and SET there are client-bound and never rank servers.
 */
export const COMPARISON_LABELS = ['GET P10 16B', 'SET P10 16B'] as const;

let comparison: SiteCellRow[] | null = null;
/** The cells the version rule reads: the headline's and the compare profile's. */
export function versionCells(): SiteCellRow[] {
  if (comparison) return comparison;
  comparison = [...headlineCells(), ...cellsOfLabels(COMPARISON_LABELS)];
  return comparison;
}

/** The best (highest median) cell per key and label: "the best result per machine". */
export function bestBy(cells: readonly SiteCellRow[], key: (c: SiteCellRow) => string): SiteCellRow[] {
  const best = new Map<string, SiteCellRow>();
  for (const c of cells) {
    if (c.opsMedian === null) continue;
    const k = `${key(c)}\u0000${c.label}`;
    const cur = best.get(k);
    if (!cur || c.opsMedian > (cur.opsMedian ?? 0)) best.set(k, c);
  }
  return [...best.values()];
}

/** The compact index the results page's filters and sorting, and the compare page's short links, read. */
let index: import('../lists/filters.js').IndexRow[] | null = null;
export function indexRows(): import('../lists/filters.js').IndexRow[] {
  if (index) return index;
  // The baseline figures a list shows, from the headline cells (standard-v1 GET and SET, errors left out).
  const base = new Map<string, Record<string, SiteCellRow>>();
  for (const c of headlineCells()) base.set(c.resultId, { ...base.get(c.resultId), [c.label]: c });
  const adHoc = new Map(adHocCells(database()).map((a) => [a.resultId, a]));
  // The machines page's slug and title of each kind: the list names a kind as that page does.
  const kindTitles = new Map(machines().map((b) => [b.slug, b.title]));
  index = allResults().map((r) => {
    const b = base.get(r.id);
    const a = adHoc.get(r.id);
    const machine = machineSlugOf(r);
    return {
      id: r.id,
      kind: r.kind,
      receivedAt: r.receivedAt,
      machine,
      machineLabel: kindTitles.get(machine) ?? null,
      virt: r.virtualizationKind,
      product: r.serverProduct,
      version: r.serverVersion,
      allocator: r.allocator,
      link: r.linkKind,
      profile: r.suiteProfile,
      warnings: r.warningCodes ? r.warningCodes.split(',').length : 0,
      cells: r.cellCount,
      // An imported result's date is its publication's, as precise as the source gives it (few: parse each).
      date:
        r.kind === 'imported'
          ? (resultView(r.id).source?.publishedAt ?? null)
          : (r.startedAt ?? r.receivedAt),
      tests: a ? a.labels.split('\u001f').map(safeText) : null,
      getOps: b?.GET?.opsMedian ?? null,
      getP99Us: b?.GET?.p99Us ?? null,
      setOps: b?.SET?.opsMedian ?? null,
      setP99Us: b?.SET?.p99Us ?? null,
      firstOps: a?.firstOpsMedian ?? null,
    };
  });
  return index;
}
