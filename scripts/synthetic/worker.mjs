// One generator thread: builds its share of the plan (every `workers`-th result), signs each with
// signResult and stores it through the real ingest() on its own connection. Both CPUs work; SQLite
// serialises the short write transactions (WAL, busy timeout), the checks run in parallel.

import { parentPort, workerData } from 'node:worker_threads';
import { ingest, openDatabase } from '@redis-benchdb/db';
import { createLatencyHistogram, signResult } from '@redis-benchdb/result';
import { plan } from './plan.mjs';
import { makeResult } from './result.mjs';

const { dbPath, seed, count, index, workers, keys } = workerData;
const db = openDatabase(dbPath);
// openDatabase sets synchronous=FULL: an fsync per commit, so that a 201 from the service means the
// result is on disk. This file is a throwaway benchmark input, rebuilt from the seed at will: a
// crash costs a re-run, not data, so the fsyncs buy nothing here. Every check of ingest() still runs.
db.sqlite.pragma('synchronous = OFF');

const { machines, slots } = plan(seed, count);
const h = createLatencyHistogram();
const t = { generate: 0, sign: 0, ingest: 0 };
let done = 0;
let bytes = 0;
let duplicates = 0;
try {
  for (let i = index; i < count; i += workers) {
    const slot = slots[i];
    const t0 = performance.now();
    const doc = makeResult(slot, machines[slot.machineIdx], h);
    const t1 = performance.now();
    const body = JSON.stringify(signResult(doc, keys[slot.machineIdx % keys.length]));
    const t2 = performance.now();
    // Received some minutes after the run finished, as a submission would be.
    const now = new Date(Date.parse(doc.finishedAt) + slot.receivedDelayMs);
    if (ingest(db, body, { now }).duplicate) duplicates++;
    t.generate += t1 - t0;
    t.sign += t2 - t1;
    t.ingest += performance.now() - t2;
    bytes += body.length;
    if (++done % 250 === 0) parentPort.postMessage({ type: 'progress', done: 250 });
  }
  parentPort.postMessage({ type: 'progress', done: done % 250 });
  parentPort.postMessage({ type: 'done', done, bytes, duplicates, ms: t });
} finally {
  db.close();
}
