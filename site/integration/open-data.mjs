import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { defaultDatabasePath, exportJsonlLines, openDatabase } from '@redis-benchdb/db';

/**
 * The open-data files: every listed result as JSON Lines (signed envelopes as received, so anyone can
 * verify them) and a consistent snapshot of the SQLite file (SQLite's online backup, safe while the
 * ingest service writes). At 10,000 results that is gigabytes of writing, so it runs in a worker
 * thread beside the page rendering, which is busy with the CPU, not the disk.
 */
export function startOpenData(dir) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { dir } });
  const done = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return done;
}

async function writeOpenData(dir) {
  const path = process.env.REDIS_BENCHDB_DB || defaultDatabasePath();
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

if (!isMainThread && workerData?.dir) {
  const t0 = performance.now();
  const { results } = await writeOpenData(workerData.dir);
  parentPort.postMessage({ results, seconds: (performance.now() - t0) / 1000 });
}
