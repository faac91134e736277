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
  | { kind: 'cohort'; dbPath: string; workloadFingerprint: string; cpuModel: string | undefined };

export interface ReadReply {
  /** The body, JSON. */
  json: string;
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
  const json = JSON.stringify(task.kind === 'list' ? list(on, task) : cohort(on, task));
  return { json, ms: performance.now() - started };
}

function list(on: BenchDb, { query, filter, options }: Extract<ReadTask, { kind: 'list' }>) {
  const page = searchResults(on, filter, options);
  const nextCursor = page.next ? encodeCursor(page.next) : null;
  return {
    results: page.results.map((r) => ({
      ...r,
      url: `/api/v1/results/${r.id}`,
      pagePath: resultPagePath(r.id),
    })),
    nextCursor,
    // The same query with the cursor: a client follows it as it is.
    next: nextCursor ? `/api/v1/results?${nextQuery(query, nextCursor)}` : null,
  };
}

function cohort(on: BenchDb, { workloadFingerprint, cpuModel }: Extract<ReadTask, { kind: 'cohort' }>) {
  return cohortDistribution(on, workloadFingerprint, cpuModel === undefined ? {} : { cpuModel });
}

function nextQuery(query: Record<string, string>, cursor: string): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (k !== 'cursor') params.set(k, v);
  params.set('cursor', cursor);
  return params.toString();
}
