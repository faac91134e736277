import type Database from 'better-sqlite3';

/** The bytes of one table or index in the file (its pages, free space inside them included). */
export interface StoreBytes {
  name: string;
  bytes: number;
}

/**
 * Where the database's bytes go, largest first: SQLite's dbstat over every table and index. For
 * `pnpm bench:store` (issue 42); small entries (under 1% of the file) are summed as "other".
 */
export function storeBreakdown(db: { sqlite: Database.Database }): StoreBytes[] {
  const rows = db.sqlite
    .prepare<[], StoreBytes>(
      'SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC',
    )
    .all();
  const total = rows.reduce((n, r) => n + r.bytes, 0);
  const large = rows.filter((r) => r.bytes >= total / 100);
  const other = total - large.reduce((n, r) => n + r.bytes, 0);
  return other > 0 ? [...large, { name: 'other', bytes: other }] : large;
}
