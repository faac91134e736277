import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  copyFileSync,
  createWriteStream,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { defaultDatabasePath, exportJsonlLines, openDatabase } from '@redis-benchdb/db';

const FILES = ['results.jsonl', 'benchdb.sqlite'];
// Entries kept: the newest few, so that builds of other databases at the same time (tests) keep theirs.
const KEEP = 3;
// REDIS_BENCHDB_OPEN_DATA_CACHE moves it (the publishing service keeps it beside its builds).
const DEFAULT_CACHE =
  process.env.REDIS_BENCHDB_OPEN_DATA_CACHE ||
  fileURLToPath(new URL('../node_modules/.cache/redis-benchdb-open-data/', import.meta.url));

/**
 * The open-data files: every listed result as JSON Lines (signed envelopes as received, so anyone can
 * verify them) and a consistent snapshot of the SQLite file (SQLite's online backup, safe while the
 * ingest service writes). At 10,000 results that is 6 GB of writing, so it runs in a worker thread
 * beside the page rendering, and only when the database changed: the files are kept in a cache under
 * the database's fingerprint and hard-linked into each build (no copy), so a rebuild of the same data
 * writes nothing. `dir` gets the two files; resolves with the count, the time, and whether they were reused.
 */
export function startOpenData(dir, cacheDir = DEFAULT_CACHE) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { dir, cacheDir } });
  const done = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return done;
}

/**
 * What the files hold, as one hash: the schema version and every result's receipt, id and retraction.
 * Results are only ever added or retracted (a stored one never changes), and a migration changes the
 * schema version, so the same fingerprint means the same files. Read from a covering index, not from
 * the rows' megabytes of envelopes.
 */
export function openDataFingerprint(db) {
  const h = createHash('sha256');
  h.update(`schema ${db.sqlite.pragma('user_version', { simple: true })}\n`);
  const rows = db.sqlite
    .prepare('SELECT received_at, id, retracted_at FROM results ORDER BY received_at, id')
    .raw()
    .iterate();
  for (const [at, id, retracted] of rows) h.update(`${at} ${id} ${retracted ?? ''}\n`);
  return h.digest('hex');
}

async function writeFiles(db, dir) {
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
  return n;
}

/** A hard link where the cache and the site share a file system, else a copy. */
function place(from, to) {
  try {
    linkSync(from, to);
  } catch (e) {
    if (e.code !== 'EXDEV' && e.code !== 'EPERM') throw e;
    copyFileSync(from, to);
  }
}

function linkEntry(entry, dir) {
  for (const f of FILES) place(join(entry, f), join(dir, f));
  const now = new Date();
  utimesSync(entry, now, now);
}

/**
 * The oldest entries go (a build that linked their files keeps them: a hard link is the file), and so
 * do the partial ones of builds that were stopped (their process is gone).
 */
function evict(cacheDir) {
  const entries = [];
  for (const n of readdirSync(cacheDir)) {
    const partial = /^[0-9a-f]{64}\.(\d+)\.partial$/.exec(n);
    if (partial && !alive(Number(partial[1]))) rmSync(join(cacheDir, n), { recursive: true, force: true });
    if (!/^[0-9a-f]{64}$/.test(n)) continue;
    const s = statSync(join(cacheDir, n), { throwIfNoEntry: false });
    if (s) entries.push({ n, t: s.mtimeMs });
  }
  entries.sort((a, b) => b.t - a.t);
  for (const { n } of entries.slice(KEEP)) rmSync(join(cacheDir, n), { recursive: true, force: true });
}

/** Whether a process still runs (a build's pid in a leftover's name). */
export function alive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

async function openData(dir, cacheDir) {
  const path = process.env.REDIS_BENCHDB_DB || defaultDatabasePath();
  mkdirSync(dir, { recursive: true });
  if (!existsSync(path)) return { results: 0, reused: false };
  const db = openDatabase(path, { readonly: true });
  try {
    // One read transaction: the fingerprint, the export and the snapshot see the same database, while
    // the service may be storing new results.
    db.sqlite.prepare('BEGIN').run();
    const fp = openDataFingerprint(db);
    const results = db.sqlite
      .prepare('SELECT count(*) FROM results WHERE retracted_at IS NULL')
      .pluck()
      .get();
    mkdirSync(cacheDir, { recursive: true });
    const entry = join(cacheDir, fp);
    if (existsSync(entry)) {
      try {
        linkEntry(entry, dir);
        return { results, reused: true };
      } catch {
        // Evicted by another build meanwhile: write it again.
        for (const f of FILES) rmSync(join(dir, f), { force: true });
      }
    }
    const partial = `${entry}.${process.pid}.partial`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial);
    await writeFiles(db, partial);
    rmSync(entry, { recursive: true, force: true });
    renameSync(partial, entry);
    linkEntry(entry, dir);
    evict(cacheDir);
    return { results, reused: false };
  } finally {
    if (db.sqlite.inTransaction) db.sqlite.prepare('COMMIT').run();
    db.close();
  }
}

if (!isMainThread && workerData?.dir) {
  const t0 = performance.now();
  const { results, reused } = await openData(workerData.dir, workerData.cacheDir);
  parentPort.postMessage({ results, reused, seconds: (performance.now() - t0) / 1000 });
}
