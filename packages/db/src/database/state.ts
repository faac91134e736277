import { schemaVersion } from '../migrations/migrate.js';
import type { BenchDb } from './open.js';

// What the file is now, read cheaply: its schema version, and whether it changed since a caller last
// looked. The service asks on every poll and every cached read, so each is a counter, not a table scan.

/** The highest migration applied to this database (the service migrates at open, so it is fixed while it runs). */
export function schemaVersionOf(db: BenchDb): number {
  return schemaVersion(db.sqlite);
}

/**
 * SQLite's data_version: it changes when another connection (a `db:build` on the same file, another
 * process) commits, never for this connection's own writes. A pragma, no table read.
 */
export function dataVersion(db: BenchDb): number {
  return db.sqlite.pragma('data_version', { simple: true }) as number;
}

const changesOf = new WeakMap<BenchDb, () => number>();

/**
 * A stamp that differs whenever anything was written since it was last taken: this connection's
 * writes show in total_changes(), another's in data_version.
 */
export function changeStamp(db: BenchDb): string {
  let changes = changesOf.get(db);
  if (!changes) {
    const st = db.sqlite.prepare<[], number>('SELECT total_changes()').pluck();
    changes = () => st.get()!;
    changesOf.set(db, changes);
  }
  return `${changes()}:${dataVersion(db)}`;
}

/**
 * The count of results, listed or not, read again only after a write (changeStamp): counting walks an
 * index (milliseconds at 10⁴ results), and a health poll must stay cheaper than what it reports on.
 */
export function resultCounter(db: BenchDb): () => number {
  const st = db.sqlite.prepare<[], number>('SELECT count(*) FROM results').pluck();
  let n = 0;
  let seen = '';
  return () => {
    const stamp = changeStamp(db);
    if (stamp !== seen) {
      n = st.get()!;
      seen = stamp;
    }
    return n;
  };
}
