import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { defaultDatabasePath, exportJsonlLines, openDatabase } from '@redis-benchdb/db';

/**
 * The open-data files: every listed result as JSON Lines (signed envelopes as received, so anyone can
 * verify them) and a consistent snapshot of the SQLite file (SQLite's online backup, safe while the
 * ingest service writes).
 */
export async function writeOpenData(outDir) {
  const path = process.env.REDIS_BENCHDB_DB || defaultDatabasePath();
  const dir = join(outDir, 'data');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(path)) return { results: 0 };
  const db = openDatabase(path, { readonly: true });
  try {
    const out = createWriteStream(join(dir, 'results.jsonl'));
    let n = 0;
    for (const line of exportJsonlLines(db)) {
      if (!out.write(line)) await once(out, 'drain');
      n++;
    }
    out.end();
    await once(out, 'finish');
    // Many pages per step: the default 100 makes a 4 GB database take ten thousand event-loop turns.
    await db.sqlite.backup(join(dir, 'benchdb.sqlite'), { progress: () => 65536 });
    return { results: n };
  } finally {
    db.close();
  }
}
