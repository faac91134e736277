// memtier_benchmark as a peer: the C tool that pipelines with a sliding window, as redis-benchdb's
// window mode does. Its flags for a workload, and its --json-out-file document read into rows
// with the project's own importer (packages/result), which is tested against real memtier output.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMemtierJson } from '@redis-benchdb/result';

/** @typedef {import('./bench.mjs').Workload} Workload */
/** @typedef {import('./bench.mjs').Row} Row */
/** @typedef {import('./bench.mjs').Peer} Peer */
/** @typedef {import('./bench.mjs').Run} Run */

/** memtier's --ratio (SET:GET) for one test: it runs one test per invocation here. */
const RATIO = { set: '1:0', get: '0:1' };

/**
 * memtier_benchmark's command line for one test of a workload (after the binary).
 * - `--distinct-client-seed`: without it every client draws the same random key sequence, and a
 *   SET run over 100,000 keys touched only about 18,000 of them: less work per SET for the server
 *   (1.17 µs of main-thread CPU instead of 1.8), which made memtier look 1.47x faster than
 *   redis-benchmark at P16 on this project's machine. With it, the key space is covered as
 *   redis-benchmark's `-r` covers it.
 * - Keys 1..keyspaceSize: memtier 2.0.0 refuses a key minimum of 0.
 * - `-n` is per client in memtier; it is rounded up so that at least `requests` are sent.
 * @param {Workload} w
 * @param {'set' | 'get'} test
 * @param {string} jsonOut where memtier writes its JSON document
 */
export function memtierArgs(w, test, jsonOut) {
  if ((w.pipelineMode ?? 'batch') === 'batch' && w.pipelineDepth > 1)
    throw new Error('memtier_benchmark has no batch mode (it keeps a sliding window of --pipeline requests)');
  if (!(test in RATIO)) throw new Error(`memtier peer: no --ratio for test ${test} (set and get only)`);
  if ('socket' in w.target) throw new Error('memtier peer: TCP targets only');
  if (w.cluster) throw new Error('memtier peer: standalone servers only');
  return [
    ...['-s', w.target.host, '-p', String(w.target.port), '--protocol=redis'],
    ...['-t', String(w.threads ?? 1), '-c', String(w.connections)],
    ...[`--pipeline=${w.pipelineDepth}`, '-d', String(w.valueSize)],
    ...['--key-minimum=1', `--key-maximum=${w.keyspaceSize}`, '--key-pattern=R:R', '--distinct-client-seed'],
    ...[`--ratio=${RATIO[test]}`, '-n', String(memtierPerClient(w))],
    ...['--hide-histogram', '--json-out-file', jsonOut],
  ];
}

/** memtier's `-n` for a workload: per client, rounded up so that at least `requests` are sent. */
const memtierPerClient = (/** @type {Workload} */ w) =>
  Math.ceil(w.requests / (w.connections * (w.threads ?? 1)));

/** The requests memtier sends for one test of a workload (its `-n` times its clients). */
export const memtierRequests = (/** @type {Workload} */ w) =>
  memtierPerClient(w) * w.connections * (w.threads ?? 1);

/**
 * The row of one test from memtier's JSON document: its Sets or Gets, with ops/s and the p50/p99
 * it printed. A GET row also says how many of its reads hit, since misses are far cheaper for the
 * server and a comparison of GET figures is fair only when both tools hit.
 * @param {string} json the --json-out-file document
 * @param {'set' | 'get'} test
 * @returns {Row & { hitRatio: number | null }}
 */
export function readMemtierRow(json, test) {
  const imported = parseMemtierJson(json, {
    title: 'memtier_benchmark --json-out-file',
    importedAt: new Date(0).toISOString(),
  });
  const want = test.toUpperCase();
  const cell = imported.cells.find((c) => c.test === want && c.label !== 'Totals');
  if (!cell)
    throw new Error(
      `memtier JSON: no ${want} figures (types: ${imported.cells.map((c) => c.label).join(', ')})`,
    );
  const figure = (/** @type {string} */ name, /** @type {unknown} */ v) => {
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    throw new Error(`memtier JSON: ${cell.label} ${name} is not a finite number: ${JSON.stringify(v)}`);
  };
  const stats = JSON.parse(json)['ALL STATS']?.[cell.label] ?? {};
  const hits = stats['Hits/sec'];
  const misses = stats['Misses/sec'];
  const reads = typeof hits === 'number' && typeof misses === 'number' ? hits + misses : 0;
  return {
    test: want,
    opsPerSec: figure('Ops/sec', cell.opsPerSec),
    latencyUs: {
      p50Us: figure('p50', cell.latencyUs.p50Us),
      p99Us: figure('p99', cell.latencyUs.p99Us),
    },
    hitRatio: want === 'GET' && reads > 0 ? hits / reads : null,
  };
}

/**
 * memtier_benchmark as a peer: one invocation per test, in the workload's order, so that GET
 * reads the keys SET has just written (as `-t set,get` does in the other two tools).
 * @param {Run} run
 * @param {{ bin: string }} opts the memtier_benchmark binary
 * @returns {Peer}
 */
export function memtierPeer(run, { bin }) {
  return async (w) => {
    const dir = mkdtempSync(join(tmpdir(), 'rbdb-memtier-'));
    try {
      const rows = [];
      for (const test of w.tests) {
        const out = join(dir, `${test}.json`);
        await run('memtier_benchmark', bin, memtierArgs(w, /** @type {'set'|'get'} */ (test), out));
        rows.push(readMemtierRow(readFileSync(out, 'utf8'), /** @type {'set'|'get'} */ (test)));
      }
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
