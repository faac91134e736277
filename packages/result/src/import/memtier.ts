// memtier_benchmark's --json-out-file document to imported.v1.
//
// The layout (memtier_benchmark's run_stats.cpp, result_print_to_json and print_json; the
// configuration block from its config printer, "Format version" 2):
//   { "configuration": { "server", "port", "protocol", "requests", "clients", "threads",
//                        "test_time", "ratio", "pipeline", "data_size", "data_size_range",
//                        "data_size_list", "key_minimum", "key_maximum", "reconnect_interval", ... },
//     "run information": { "Threads", "Connections per thread", "Requests per client",
//                          "Benchmark completion status", ... },
//     "ALL STATS": { "Runtime": {...},
//                    "Sets" | "Gets" | "Waits" | "Totals" | one per --command ("Hsets"):
//                      { "Count", "Ops/sec", "Hits/sec", "Misses/sec", "Latency" (= average),
//                        "Average Latency", "Min Latency", "Max Latency", "KB/sec", "Time-Serie",
//                        "Percentile Latencies": { "p50.00", "p99.00", "p99.90", ...,
//                                                  "Histogram log format": {...} } } } }
// Latencies are milliseconds (printed %.3f) and are converted exactly. Older memtier versions
// print only "Ops/sec" and "Latency" per type: the other fields stay null.
import type { ImportedCell, ImportedV1, ImportedWorkload } from '../generated/imported-v1.js';
import {
  emptyLatency,
  emptyWorkload,
  ImportError,
  type ImportOptions,
  importedDocument,
  latencyField,
  msNumberToUs,
  sourceOf,
  toolOf,
} from './common.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const positiveInt = (v: unknown): number | null =>
  Number.isInteger(v) && (v as number) > 0 ? (v as number) : null;
const nonNegativeInt = (v: unknown): number | null =>
  Number.isInteger(v) && (v as number) >= 0 ? (v as number) : null;
const msField = (v: unknown): number | null => (typeof v === 'number' ? msNumberToUs(v) : null);

const STANDARD_TYPES: Record<string, string> = { Sets: 'SET', Gets: 'GET', Waits: 'WAIT' };

/** The workload memtier's configuration block (or, lacking it, its run information) states. */
export function memtierWorkload(doc: Json): ImportedWorkload {
  const config = isObject(doc.configuration) ? doc.configuration : {};
  const run = isObject(doc['run information']) ? doc['run information'] : {};
  const workload = emptyWorkload();
  const clients = positiveInt(config.clients) ?? positiveInt(run['Connections per thread']);
  const threads = positiveInt(config.threads) ?? positiveInt(run.Threads);
  workload.threads = threads;
  workload.connections = clients !== null && threads !== null ? clients * threads : null;
  workload.pipelineDepth = positiveInt(config.pipeline);

  const sizeRange = typeof config.data_size_range === 'string' ? config.data_size_range : '0:0';
  const sizeList = typeof config.data_size_list === 'string' ? config.data_size_list : '';
  const fixedSize = (sizeRange === '0:0' || sizeRange === '0-0') && sizeList === '';
  workload.valueSizeBytes = fixedSize ? nonNegativeInt(config.data_size) : null;

  const keyMin = nonNegativeInt(config.key_minimum);
  const keyMax = nonNegativeInt(config.key_maximum);
  workload.keyspaceSize = keyMin !== null && keyMax !== null && keyMax >= keyMin ? keyMax - keyMin + 1 : null;

  const testTime = typeof config.test_time === 'number' && config.test_time > 0 ? config.test_time : null;
  const perClient = positiveInt(config.requests) ?? positiveInt(run['Requests per client']);
  workload.durationSec = testTime;
  workload.requests =
    testTime === null && perClient !== null && workload.connections !== null
      ? perClient * workload.connections
      : null;

  workload.ratio = typeof config.ratio === 'string' && /^\d+:\d+$/.test(config.ratio) ? config.ratio : null;
  workload.keepAlive =
    config.reconnect_interval === 0 ? true : config.reconnect_interval === 1 ? false : null;
  return workload;
}

/**
 * A memtier_benchmark --json-out-file document to an imported.v1 document of kind `memtier-json`:
 * one cell per command type in "ALL STATS" that ran (Sets, Gets, Waits, arbitrary commands) and
 * one for Totals. Throws ImportError for something else, an interrupted run (its rates are not a
 * full run's), or a memcached-protocol run.
 */
export function parseMemtierJson(text: string, options: ImportOptions): ImportedV1 {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ImportError(`not JSON: ${(e as Error).message}`);
  }
  if (!isObject(doc) || !isObject(doc['ALL STATS']))
    throw new ImportError('not a memtier_benchmark JSON document (no "ALL STATS")');
  const config = isObject(doc.configuration) ? doc.configuration : {};
  const run = isObject(doc['run information']) ? doc['run information'] : {};
  const completion = isObject(doc.benchmark_completion) ? doc.benchmark_completion : {};
  const status = run['Benchmark completion status'];
  if (completion.full_run === false || (typeof status === 'string' && /interrupt/i.test(status)))
    throw new ImportError(
      `memtier reports the run as not complete${typeof status === 'string' ? ` (${status})` : ''}: its rates are not a full run's`,
    );
  if (typeof config.protocol === 'string' && /memcache/i.test(config.protocol))
    throw new ImportError(`a ${config.protocol} run: not a Redis-protocol benchmark`);

  const workload = memtierWorkload(doc);
  const stats = doc['ALL STATS'];
  const arbitrary = Object.keys(stats).some(
    (k) => isObject(stats[k]) && 'Ops/sec' in stats[k] && !(k in STANDARD_TYPES) && k !== 'Totals',
  );
  const cells: ImportedCell[] = [];
  for (const [label, value] of Object.entries(stats)) {
    if (!isObject(value) || typeof value['Ops/sec'] !== 'number') continue;
    const ops = value['Ops/sec'];
    const count = value.Count;
    if (count === 0 || (count === undefined && ops === 0)) continue; // a type that did not run (Waits)
    if (ops < 0) throw new ImportError(`"${label}": negative Ops/sec`);
    const latency = emptyLatency();
    latency.avgUs = msField(value['Average Latency'] ?? value.Latency);
    latency.minUs = msField(value['Min Latency']);
    latency.maxUs = msField(value['Max Latency']);
    const percentiles = value['Percentile Latencies'];
    if (isObject(percentiles))
      for (const [key, v] of Object.entries(percentiles)) {
        const field = latencyField(key);
        if (field && typeof v === 'number') latency[field] = msNumberToUs(v);
      }
    cells.push({
      label,
      test: testOf(label, workload.ratio, arbitrary),
      workload: { ...workload },
      opsPerSec: ops,
      latencyUs: latency,
    });
  }
  if (cells.length === 0) throw new ImportError('no command type with an Ops/sec figure in "ALL STATS"');

  const notes: string[] = [];
  if (!isObject(doc.configuration))
    notes.push('The document has no configuration block; the workload is from its run information.');
  return importedDocument({
    source: sourceOf('memtier-json', text, options),
    tool: toolOf('memtier_benchmark', options.commandLine ?? null, options),
    cells,
    notes,
  });
}

function testOf(label: string, ratio: string | null, arbitrary: boolean): string {
  const standard = STANDARD_TYPES[label];
  if (standard) return standard;
  if (label === 'Totals') return arbitrary ? 'ALL' : ratio ? `SET:GET ${ratio}` : 'SET:GET';
  // memtier names an arbitrary command's type after it: `hset` -> `Hsets`.
  return label.replace(/s$/, '').toUpperCase();
}
