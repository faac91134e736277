import { parentPort } from 'node:worker_threads';
import { runTask, type Task } from '../lib/prepare-pool.js';

// One page's work at a time: read, check the signature, draw the charts, write the files, send back
// what the page renders. The main thread keeps rendering other pages meanwhile.
parentPort!.on('message', (task: Task) => {
  try {
    parentPort!.postMessage({ ok: true, prepared: runTask(task) });
  } catch (e) {
    parentPort!.postMessage({ ok: false, error: (e as Error).stack ?? String(e) });
  }
});
