import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  copyFileSync,
  createWriteStream,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import {
  copyDatabase,
  databaseFingerprint,
  defaultDatabasePath,
  exportJsonlPart,
  inReadTransaction,
  OPEN_DATA_INDEX,
  OPEN_DATA_INDEX_SCHEMA,
  openDatabase,
  openDataParts,
} from '@redis-benchdb/db';

const SNAPSHOT = 'benchdb.sqlite';
// Entries kept: the newest few, so that builds of other databases at the same time (tests) keep theirs.
const KEEP = 3;
// A part no kept entry names is removed once it is this old: younger, a build may be about to name it.
const PART_GRACE_MS = 10 * 60_000;
// REDIS_BENCHDB_OPEN_DATA_CACHE moves it (the publishing service keeps it beside its builds).
const DEFAULT_CACHE =
  process.env.REDIS_BENCHDB_OPEN_DATA_CACHE ||
  fileURLToPath(new URL('../node_modules/.cache/redis-benchdb-open-data/', import.meta.url));

/**
 * The open-data files: every listed result as JSON Lines in monthly parts (signed envelopes as
 * received, so anyone can verify them), `results-parts.json` naming each part with its SHA-256, and a
 * consistent snapshot of the SQLite file (SQLite's online backup, safe while the ingest service writes).
 * A new result changes one part (its month), a retraction the part that listed it: the others are kept
 * in a cache under their fingerprint (packages/db open-data.ts) and hard-linked into each build, never
 * written again. The snapshot is kept under the database's fingerprint, so a rebuild of the same data
 * writes nothing. Runs in a worker thread beside the page rendering. `dir` gets the files; resolves
 * with the count, the time, whether all were reused, and how many parts were written.
 */
export function startOpenData(dir, cacheDir = DEFAULT_CACHE) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { dir, cacheDir } });
  const done = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return done;
}

/** A file written beside its final name and moved there, so a stopped build leaves no half file. */
async function writeLines(lines, path) {
  const partial = `${path}.${process.pid}.partial`;
  const out = createWriteStream(partial);
  const hash = createHash('sha256');
  let bytes = 0;
  for (const line of lines) {
    hash.update(line);
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  renameSync(partial, path);
  return { bytes, sha256: hash.digest('hex') };
}

/** Each part from the cache, or written to it; `dir` gets a link to each and the index. */
async function placeParts(db, cacheDir, dir) {
  const partsDir = join(cacheDir, 'parts');
  mkdirSync(partsDir, { recursive: true });
  const listed = [];
  let written = 0;
  for (const part of openDataParts(db)) {
    const cached = join(partsDir, `${part.fingerprint}.jsonl`);
    const meta = `${cached}.json`;
    let facts = existsSync(cached) && existsSync(meta) ? JSON.parse(readFileSync(meta, 'utf8')) : null;
    if (!facts) {
      facts = await writeLines(exportJsonlPart(db, part.month), cached);
      writeFileSync(meta, JSON.stringify(facts));
      written++;
    }
    const now = new Date();
    utimesSync(cached, now, now);
    place(cached, join(dir, part.file));
    listed.push({
      file: part.file,
      month: part.month,
      results: part.results,
      ...facts,
      fingerprint: part.fingerprint,
    });
  }
  const index = {
    schema: OPEN_DATA_INDEX_SCHEMA,
    results: listed.reduce((n, p) => n + p.results, 0),
    parts: listed,
  };
  writeFileSync(join(dir, OPEN_DATA_INDEX), `${JSON.stringify(index, null, 2)}\n`);
  return { index, written };
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
  place(join(entry, SNAPSHOT), join(dir, SNAPSHOT));
  const now = new Date();
  utimesSync(entry, now, now);
}

/**
 * The oldest snapshots go (a build that linked their files keeps them: a hard link is the file), and
 * so do the partial ones of builds that were stopped (their process is gone), and parts no kept
 * entry's index names.
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
  const named = new Set();
  for (const { n } of entries.slice(0, KEEP)) {
    const index = join(cacheDir, n, OPEN_DATA_INDEX);
    if (existsSync(index))
      for (const p of JSON.parse(readFileSync(index, 'utf8')).parts) named.add(p.fingerprint);
  }
  const partsDir = join(cacheDir, 'parts');
  for (const n of existsSync(partsDir) ? readdirSync(partsDir) : []) {
    const fp = n.slice(0, 64);
    const s = statSync(join(partsDir, n), { throwIfNoEntry: false });
    if (!named.has(fp) && s && Date.now() - s.mtimeMs > PART_GRACE_MS)
      rmSync(join(partsDir, n), { force: true });
  }
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
  if (!existsSync(path)) return { results: 0, reused: false, partsWritten: 0 };
  const db = openDatabase(path, { readonly: true });
  try {
    // One read transaction: the fingerprints, the parts and the snapshot see the same database, while
    // the service may be storing new results.
    return await inReadTransaction(db, () => placeOpenData(db, dir, cacheDir));
  } finally {
    db.close();
  }
}

/** The parts and the snapshot of the database as it is now, from the cache where it holds them. */
async function placeOpenData(db, dir, cacheDir) {
  mkdirSync(cacheDir, { recursive: true });
  const { index, written } = await placeParts(db, cacheDir, dir);
  const entry = join(cacheDir, databaseFingerprint(db));
  let reused = written === 0;
  if (existsSync(entry)) {
    try {
      linkEntry(entry, dir);
      return { results: index.results, reused, partsWritten: written };
    } catch {
      // Evicted by another build meanwhile: write it again.
      rmSync(join(dir, SNAPSHOT), { force: true });
    }
  }
  reused = false;
  const partial = `${entry}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial);
  // Many pages per step: the default 100 makes a 4 GB database take ten thousand event-loop turns.
  await copyDatabase(db, join(partial, SNAPSHOT), 65536);
  // The entry's index says which parts it needs, so eviction keeps them.
  copyFileSync(join(dir, OPEN_DATA_INDEX), join(partial, OPEN_DATA_INDEX));
  rmSync(entry, { recursive: true, force: true });
  renameSync(partial, entry);
  linkEntry(entry, dir);
  evict(cacheDir);
  return { results: index.results, reused, partsWritten: written };
}

if (!isMainThread && workerData?.dir) {
  const t0 = performance.now();
  const { results, reused, partsWritten } = await openData(workerData.dir, workerData.cacheDir);
  parentPort.postMessage({ results, reused, partsWritten, seconds: (performance.now() - t0) / 1000 });
}
