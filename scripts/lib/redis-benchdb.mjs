// redis-benchdb as a peer: its flags for a workload, and its --json output read into rows. The
// reader checks every figure the scripts use, so a change in the result format stops a script
// with the field's name instead of printing NaN (as bench:peers once did when opsPerSec became a
// trial summary).

import { fileURLToPath } from 'node:url';

/** @typedef {import('./bench.mjs').Workload} Workload */
/** @typedef {import('./bench.mjs').Row} Row */
/** @typedef {import('./bench.mjs').Peer} Peer */
/** @typedef {import('./bench.mjs').Run} Run */

/** The built CLI (`pnpm -s build`). */
export const CLI = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));

/**
 * `redis-benchdb run`'s command line for a workload (after `node bin.js`).
 * @param {Workload} w
 * @param {{ store?: boolean }} [opts] store: keep the result in the local database
 */
export function redisBenchdbArgs(w, { store = false } = {}) {
  const target =
    'socket' in w.target ? ['-s', w.target.socket] : ['-h', w.target.host, '-p', String(w.target.port)];
  return [
    'run',
    ...(w.cluster ? ['--cluster'] : []),
    ...target,
    ...['-t', w.tests.join(','), '-c', String(w.connections), '-d', String(w.valueSize)],
    ...['-r', String(w.keyspaceSize)],
    ...(w.threads === undefined ? [] : ['--threads', String(w.threads)]),
    ...['-n', String(w.requests), '-P', String(w.pipelineDepth)],
    ...['--pipeline-mode', w.pipelineMode ?? 'batch', '--json'],
    ...(store ? [] : ['--no-store']),
  ];
}

/**
 * The cells of `redis-benchdb run --json`, one per expected test, each checked: it ran to its end
 * without error replies, and every figure the scripts read is a finite number. Each comes back
 * without its encoded histograms and per-trial copies (long, and not figures), and with opsPerSec
 * as the median over its trials (with one trial, that trial's figure).
 * @param {string} out the whole stdout
 * @param {string[]} tests the tests asked for, e.g. ['set', 'get']
 * @param {string} [label] what the run was, for messages, e.g. 'P16 window'
 * @returns {Array<Row & Record<string, unknown>>}
 */
export function readBenchdbCells(out, tests, label) {
  let cells;
  try {
    cells = JSON.parse(out).cells;
  } catch {
    // reported just below
  }
  const want = tests.map((t) => t.toUpperCase());
  if (!Array.isArray(cells) || cells.length !== want.length)
    throw new Error(
      `redis-benchdb --json: want a document with ${want.length} cells, got:\n${out.slice(0, 2000)}`,
    );
  return want.map((test) => {
    const c = cells.find((x) => x?.test === test);
    if (!c)
      throw new Error(
        `redis-benchdb --json: no ${test} cell (cells: ${cells.map((x) => x?.test).join(', ')})`,
      );
    const where = `redis-benchdb --json: cell ${test}${label ? ` (${label})` : ''}`;
    if (c.error || c.incomplete) throw new Error(`${where} failed: ${c.error ?? 'incomplete'}`);
    if (c.errors && Object.keys(c.errors).length > 0)
      throw new Error(`${where} had error replies: ${JSON.stringify(c.errors)}`);
    const at = (/** @type {string} */ path) => path.split('.').reduce((o, k) => o?.[k], c);
    const figure = (/** @type {string} */ path, { nullable = false, positive = false } = {}) => {
      const v = at(path);
      if (nullable && v === null) return v;
      if (typeof v === 'number' && Number.isFinite(v) && (!positive || v > 0)) return v;
      if (v !== undefined)
        throw new Error(
          `${where}: ${path} is not a ${positive ? 'positive ' : ''}finite number: ${JSON.stringify(v)}`,
        );
      // Say what is there instead: a field that changed shape is the likely cause.
      const parent = path.split('.').slice(0, -1).join('.');
      const instead =
        parent && at(parent) !== undefined ? ` (${parent} is ${JSON.stringify(at(parent))})` : '';
      throw new Error(`${where}: ${path} is missing${instead}`);
    };
    const opsPerSec = figure('opsPerSec.median', { positive: true });
    figure('latencyUs.p50Us');
    figure('latencyUs.p99Us');
    figure('saturation.serverMainThreadCpuShare', { nullable: true });
    const elu = at('saturation.clientEventLoopUtilization');
    if (!Array.isArray(elu) || elu.length === 0)
      throw new Error(
        `${where}: saturation.clientEventLoopUtilization is not a list: ${JSON.stringify(elu)}`,
      );
    for (let i = 0; i < elu.length; i++) figure(`saturation.clientEventLoopUtilization.${i}`);
    for (const path of ['saturation.limitedBy', 'crossCheck.status'])
      if (typeof at(path) !== 'string') throw new Error(`${where}: ${path} is missing`);
    const { histogram: _h, responseHistogram: _r, trials: _t, ...rest } = c;
    return { ...rest, opsPerSec };
  });
}

/**
 * redis-benchdb as a peer: one `run` per workload, one row (its whole cell, checked) per test.
 * @param {Run} run
 * @param {{ cli?: string, store?: boolean }} [opts] cli: the built bin.js, or a stand-in
 * @returns {Peer}
 */
export function redisBenchdbPeer(run, { cli = CLI, store = false } = {}) {
  return async (w) => {
    const out = await run('redis-benchdb', process.execPath, [cli, ...redisBenchdbArgs(w, { store })]);
    return readBenchdbCells(out, w.tests, `P${w.pipelineDepth} ${w.pipelineMode ?? 'batch'}`);
  };
}
