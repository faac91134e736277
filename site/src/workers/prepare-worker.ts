import { runTask, type Task } from '../lib/data/prepare-pool.js';

// One page's work at a time, on a thread of the pool (prepare-pool.ts, tinypool): read, check the
// signature, draw the charts, write the files, return what the page renders. The main thread keeps
// rendering other pages meanwhile.
export default function prepare(task: Task) {
  return runTask(task);
}
