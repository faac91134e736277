import { parentPort, workerData } from 'node:worker_threads';
import { clusterConnections } from './cluster/connection.js';
import { standaloneConnections } from './load/connection.js';
import { Driver } from './load/driver.js';
import type { ControlMessage, WorkerMessage } from './load/plan.js';
import type { WorkerPlan } from './run-workers.js';

/** A worker thread: connects, then follows start/measure/stop messages and sends back a report. */
const port = parentPort!;
const post = (m: WorkerMessage) => port.postMessage(m);
const plan = workerData as WorkerPlan;
// The driver is given its connections: it drives standalone and cluster ones alike.
const connections = plan.cluster ? clusterConnections(plan, plan.cluster) : standaloneConnections(plan);
const driver = new Driver(plan, connections);

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
