// redis-benchmark as a peer: its flags for a workload, and its --csv output read into rows.

/** @typedef {import('./bench.mjs').Workload} Workload */
/** @typedef {import('./bench.mjs').Row} Row */
/** @typedef {import('./bench.mjs').Peer} Peer */
/** @typedef {import('./bench.mjs').Run} Run */

/**
 * redis-benchmark's command line for a workload (after the binary).
 * @param {Workload} w
 */
export function redisBenchmarkArgs(w) {
  if (w.pipelineMode === 'window')
    throw new Error('redis-benchmark has no window mode (it pipelines in batches)');
  const target =
    'socket' in w.target ? ['-s', w.target.socket] : ['-h', w.target.host, '-p', String(w.target.port)];
  return [
    ...(w.cluster ? ['--cluster'] : []),
    ...target,
    ...['-t', w.tests.join(','), '-c', String(w.connections), '-d', String(w.valueSize)],
    ...['-r', String(w.keyspaceSize)],
    ...(w.threads === undefined ? [] : ['--threads', String(w.threads)]),
    ...['-n', String(w.requests), '-P', String(w.pipelineDepth), '--csv'],
  ];
}

const COLUMNS = ['test', 'rps', 'p50_latency_ms', 'p99_latency_ms'];

/**
 * redis-benchmark --csv output as rows shaped like redis-benchdb's cells. Its latencies are in ms,
 * redis-benchdb's in µs. Throws, naming the column, when a figure is missing or not a finite number.
 * @param {string} out the whole stdout; lines that are not CSV (warnings) are skipped
 * @returns {Row[]}
 */
export function parseRedisBenchmarkCsv(out) {
  // CSV of double-quoted fields: each line is a JSON array once wrapped in brackets.
  const [header, ...lines] = out.split('\n').filter((l) => l.startsWith('"'));
  if (header === undefined) throw new Error(`redis-benchmark --csv: no CSV in its output:\n${out}`);
  /** @type {string[]} */
  const names = JSON.parse(`[${header}]`);
  const missing = COLUMNS.filter((c) => !names.includes(c));
  if (missing.length > 0)
    throw new Error(`redis-benchmark --csv: no ${missing.join(', ')} column in: ${header}`);
  return lines.map((l) => {
    /** @type {Record<string, string>} */
    const r = Object.fromEntries(JSON.parse(`[${l}]`).map((v, i) => [names[i], v]));
    const figure = (/** @type {string} */ column) => {
      const v = Number(r[column]);
      if (r[column] === '' || !Number.isFinite(v))
        throw new Error(`redis-benchmark --csv: ${r.test} ${column} is not a finite number: ${r[column]}`);
      return v;
    };
    return {
      test: r.test,
      opsPerSec: figure('rps'),
      latencyUs: { p50Us: figure('p50_latency_ms') * 1000, p99Us: figure('p99_latency_ms') * 1000 },
    };
  });
}

/**
 * redis-benchmark as a peer: one run per workload, one row per test.
 * @param {Run} run
 * @param {{ bin?: string }} [opts]
 * @returns {Peer}
 */
export function redisBenchmarkPeer(run, { bin = 'redis-benchmark' } = {}) {
  return async (w) => {
    const out = await run('redis-benchmark', bin, redisBenchmarkArgs(w));
    const rows = parseRedisBenchmarkCsv(out);
    const want = w.tests.map((t) => t.toUpperCase());
    const got = rows.map((r) => r.test);
    if (got.length !== want.length || want.some((t) => !got.includes(t)))
      throw new Error(`redis-benchmark: expected ${want.join(' and ')} rows, got:\n${out}`);
    return rows;
  };
}
