import { parentPort, workerData } from 'node:worker_threads';
import { Driver } from './load/driver.js';
import type { ControlMessage, WorkerMessage, WorkerPlan } from './load/plan.js';

/** A worker thread: connects, then follows start/measure/stop messages and sends back a report. */
const port = parentPort!;
const post = (m: WorkerMessage) => port.postMessage(m);
const driver = new Driver(workerData as WorkerPlan);

driver.connect().then(
  () => post({ type: 'ready' }),
  (err: NodeJS.ErrnoException) => {
    post({ type: 'failed', message: err.message, code: err.code ?? 'ERR_CONNECT' });
    driver.abort(err.message);
  },
);

const progress = setInterval(
  () => post({ type: 'progress', measuredCompleted: driver.workload.measuredCompleted }),
  200,
);
progress.unref();

port.on('message', (m: ControlMessage) => {
  if (m.type === 'start') driver.start(m.measure, m.durationMs);
  else if (m.type === 'measure') driver.beginMeasure(m.durationMs);
  else if (m.type === 'stop') driver.stop();
  else driver.abort('stopped before the end (interrupted)', 'interrupted');
});

driver.done.then((report) => {
  clearInterval(progress);
  post({ type: 'done', report });
  port.close();
});
