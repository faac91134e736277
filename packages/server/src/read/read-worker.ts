// A worker thread of ReadPool: the read API's queries on a read-only connection of its own, away from
// the service's event loop, answered as the JSON text the client gets.
import {
  type BenchDb,
  cohortDistribution,
  openDatabase,
  type ResultFilter,
  resultPagePath,
  type SearchOptions,
  searchResults,
} from '@redis-benchdb/db';
import { encodeCursor } from './cursor.js';

export type ReadTask =
  | {
      kind: 'list';
      dbPath: string;
      /** The query as received (each value one string): the `next` link repeats it. */
      query: Record<string, string>;
      filter: ResultFilter;
      options: SearchOptions;
    }
  | ({ kind: 'cohort'; dbPath: string; workloadFingerprint: string } & CohortQuery);

/** What a cohort is narrowed to (routes/read.ts checked each): `machine` and `cpuModel` never both. */
export interface CohortQuery {
  /** A machine kind's key; left out, every kind. */
  machine?: string;
  /** A configuration key, 'default' or 'any'. */
  config: string;
  /** Deprecated: answered only where the name is one machine kind in the cohort. */
  cpuModel?: string;
}

export interface ReadReply {
  /** The body, JSON. */
  json: string;
  /** Set instead of a body when the query cannot be answered as asked: the route answers it 400. */
  refusal?: { code: string; message: string };
  /** Time the query and the JSON took on this thread. */
  ms: number;
}

let db: BenchDb | undefined;

/** SQLite in WAL mode: each query sees every commit made before it began, by the service or anyone. */
function open(path: string): BenchDb {
  if (!db || db.path !== path) {
    db?.close();
    db = openDatabase(path, { readonly: true });
  }
  return db;
}

export default function read(task: ReadTask): ReadReply {
  return readFrom(open(task.dbPath), task);
}

/** The read on a given connection: the thread's, or the service's own for a database in memory. */
export function readFrom(on: BenchDb, task: ReadTask): ReadReply {
  const started = performance.now();
  const body = task.kind === 'list' ? list(on, task) : cohort(on, task);
  const ms = performance.now() - started;
  return 'refusal' in body ? { json: '', refusal: body.refusal, ms } : { json: JSON.stringify(body), ms };
}

function list(on: BenchDb, { query, filter, options }: Extract<ReadTask, { kind: 'list' }>) {
  const page = searchResults(on, filter, options);
  const nextCursor = page.next ? encodeCursor(page.next) : null;
  return {
    results: page.results.map(
      ({ machineKey, machineLabel, configKey, configLabel, configDefault, ...r }) => ({
        ...r,
        machine: machineKey === null ? null : { key: machineKey, label: machineLabel },
        configuration:
          configKey === null ? null : { key: configKey, label: configLabel, isDefault: configDefault === 1 },
        url: `/api/v1/results/${r.id}`,
        pagePath: resultPagePath(r.id),
      }),
    ),
    nextCursor,
    // The same query with the cursor: a client follows it as it is.
    next: nextCursor ? `/api/v1/results?${nextQuery(query, nextCursor)}` : null,
  };
}

/**
 * A cohort never pools machine kinds that share a CPU model name (VMs of one "AMD EPYC" with other
 * caches): `cpuModel` is answered only when the name is one kind among the members, and then as that
 * kind; otherwise the refusal lists the kinds' keys to pass as `machine`.
 */
function cohort(
  on: BenchDb,
  { workloadFingerprint, machine, config, cpuModel }: Extract<ReadTask, { kind: 'cohort' }>,
) {
  const d = cohortDistribution(on, workloadFingerprint, {
    config,
    ...(machine !== undefined ? { machineKey: machine } : {}),
    ...(cpuModel !== undefined ? { cpuModel } : {}),
  });
  if (cpuModel === undefined) return d;
  const kind = d.machines[0];
  if (d.machines.length > 1)
    return {
      refusal: {
        code: 'AMBIGUOUS_CPU_MODEL',
        message: `cpuModel ${JSON.stringify(cpuModel)} names ${d.machines.length} machine kinds in this cohort, and a cohort never pools kinds: pass machine=<key> instead (cpuModel is deprecated), one of: ${d.machines
          .map(
            (m) => `${m.key} (${m.label ?? 'label unknown'}, ${m.count} result${m.count === 1 ? '' : 's'})`,
          )
          .join('; ')}`,
      },
    };
  return {
    ...d,
    machine: kind?.key ? { key: kind.key, label: kind.label } : null,
    deprecation: kind?.key
      ? `cpuModel is deprecated: several machine kinds may share a CPU model name; pass machine=${encodeURIComponent(kind.key)}`
      : 'cpuModel is deprecated: several machine kinds may share a CPU model name; pass machine=<key> (each result in GET /api/v1/results carries machine.key)',
  };
}

function nextQuery(query: Record<string, string>, cursor: string): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (k !== 'cursor') params.set(k, v);
  params.set('cursor', cursor);
  return params.toString();
}
