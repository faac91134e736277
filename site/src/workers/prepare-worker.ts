import { parentPort } from 'node:worker_threads';
import { prepareResult } from '../lib/prepare.js';

// One result at a time: read, check the signature, draw the charts, write the files, send back
// what the page renders. The main thread keeps rendering other pages meanwhile.
parentPort!.on('message', (id: string) => {
  try {
    parentPort!.postMessage({ ok: true, prepared: prepareResult(id) });
  } catch (e) {
    parentPort!.postMessage({ ok: false, error: (e as Error).stack ?? String(e) });
  }
});
