// redis-benchmark's output, in every form it has had, to imported.v1.
//
// Text (parseRedisBenchmarkText):
//   - Redis 6.2+ full output: `====== SET ======` blocks with `N requests completed in S seconds`,
//     `N parallel clients`, `N bytes payload`, `keep alive: 1`, `multi-thread: no` (or `yes` and
//     `threads: N`), `Latency by percentile distribution:` lines (`50.000% <= 0.263 milliseconds
//     (cumulative count 10044)`), `Cumulative distribution of latencies:` lines (ignored: fixed
//     latency steps, no percentiles) and `Summary:` with `throughput summary: R requests per second`
//     and the `avg min p50 p95 p99 max` table in milliseconds.
//   - The -q form: `SET: 95238.10 requests per second, p50=0.263 msec` (the p50 since 6.2).
//   - redis-benchmark 2.x-6.0's full output: the same block header, whole-millisecond lines
//     (`58.50% <= 0 milliseconds`) and `114293.71 requests per second`.
//   Progress lines drawn with carriage returns are read as a terminal shows them (terminalText), so
//   raw captured output and what was copied from a screen give the same result.
// CSV (parseRedisBenchmarkCsv): 6.2+'s `"test","rps","avg_latency_ms",...` with a header, and the
// older two-column `"SET","123.45"`.
//
// Percentiles: the summary table is taken as printed; it is hdr_value_at_percentile, the tool's own
// value. A percentile it does not print (p90, p99.9) is read from the 'Latency by percentile
// distribution' lines: the value of the first line whose percentage is >= the target. Those lines
// are the steps of an HdrHistogram percentile iterator (0, 50, 75, 87.5, ... %), each printed only
// when it reaches a new bucket, so the value found is an upper bound of the value at the target, and
// equal to it when a line is at the target exactly; the document's notes say when cells got one.
import type {
  ImportedCell,
  ImportedLatency,
  ImportedV1,
  ImportedWorkload,
} from '../generated/imported-v1.js';
import {
  decimal,
  emptyLatency,
  emptyWorkload,
  ImportError,
  type ImportOptions,
  importedDocument,
  latencyField,
  msToUs,
  shellWords,
  sourceOf,
  terminalText,
  testOf,
  toolOf,
} from './common.js';

/** A 'Latency by percentile distribution' line: `99.902% <= 3.263 milliseconds (cumulative count 19981)`. */
export interface DistributionLine {
  percent: number;
  /** The value as printed, in milliseconds. */
  ms: string;
}

/**
 * The latency at `target` percent from 'Latency by percentile distribution' lines, in µs: the value
 * of the first line whose percentage is >= target (null when none is). See the file comment for
 * why that is an upper bound of redis-benchmark's own value at the percentile.
 */
export function percentileFromDistribution(
  lines: readonly DistributionLine[],
  target: number,
): number | null {
  const line = lines.find((l) => l.percent >= target);
  return line ? msToUs(line.ms) : null;
}

const TARGETS: ReadonlyArray<[keyof ImportedLatency, number]> = [
  ['p50Us', 50],
  ['p90Us', 90],
  ['p95Us', 95],
  ['p99Us', 99],
  ['p999Us', 99.9],
];

const PROMPT = /^\s*[$#]\s+/;

/**
 * The redis-benchmark command in the text: a line whose first word is redis-benchmark (or a path to
 * it), or a shell-prompt line (`$ numactl -C 6 ./redis-benchmark -q ...`) that runs it. Returned
 * without the prompt; null when there is none.
 */
export function findRedisBenchmarkCommand(text: string): string | null {
  for (const raw of text.split('\n')) {
    const prompted = PROMPT.test(raw);
    const line = raw.replace(PROMPT, '').trim();
    const words = shellWords(line);
    const at = words.findIndex((w) => w === 'redis-benchmark' || w.endsWith('/redis-benchmark'));
    if (at === 0 || (at > 0 && prompted)) return line;
  }
  return null;
}

/** The workload a redis-benchmark command line sets: -c -n -d -P -r -k --threads; null for the rest. */
export function redisBenchmarkFlags(commandLine: string | null | undefined): ImportedWorkload {
  const workload = emptyWorkload();
  if (!commandLine) return workload;
  const words = shellWords(commandLine);
  const start = words.findIndex((w) => w === 'redis-benchmark' || w.endsWith('/redis-benchmark'));
  const args = words.slice(start + 1);
  const int = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : null);
  for (let i = 0; i < args.length; i++) {
    const next = args[i + 1];
    switch (args[i]) {
      case '-c':
        workload.connections = int(next);
        break;
      case '-n':
        workload.requests = int(next);
        break;
      case '-d':
        workload.valueSizeBytes = int(next);
        break;
      case '-P':
        workload.pipelineDepth = int(next);
        break;
      case '-r':
        workload.keyspaceSize = int(next);
        break;
      case '-k':
        workload.keepAlive = next === '1' ? true : next === '0' ? false : null;
        break;
      case '--threads':
        workload.threads = int(next);
        break;
      default:
        continue;
    }
    i++;
  }
  return workload;
}

interface Block {
  label: string;
  requests: number | null;
  clients: number | null;
  payload: number | null;
  keepAlive: boolean | null;
  threads: number | null;
  ops: number | null;
  latency: ImportedLatency;
  distribution: DistributionLine[];
  part: 'head' | 'percentiles' | 'cumulative' | 'summary';
  summaryColumns: string[] | null;
}

const RE = {
  header: /^={3,}\s*(.+?)\s*={3,}$/,
  completed: /^(\d+) requests completed in [\d.]+ seconds$/,
  clients: /^(\d+) parallel clients$/,
  payload: /^(\d+) bytes payload$/,
  keepAlive: /^keep alive: (\d+)$/,
  multiThread: /^multi-thread: (yes|no)$/,
  threads: /^threads: (\d+)$/,
  distribution: /^([\d.]+)% <= ([\d.]+) milliseconds \(cumulative count \d+\)$/,
  wholeMs: /^[\d.]+% `?<=`? [\d.]+ milliseconds$/,
  throughput: /^throughput summary: ([\d.]+) requests per second$/,
  latencySummary: /^latency summary \(msec\):$/,
  summaryHeader: /^(?:avg|min|max|p[\d.]+)(?:\s+(?:avg|min|max|p[\d.]+))*$/,
  summaryValues: /^[\d.]+(?:\s+[\d.]+)*$/,
  oldRps: /^([\d.]+) requests per second$/,
  quiet: /^(.+?): ([\d.]+) requests per second(?:, p50=([\d.]+) msec)?$/,
};

/**
 * redis-benchmark's console output (full, -q, or 2.x-6.0's) to an imported.v1 document of kind
 * `redis-benchmark-text`. The command line is taken from options, else from a line of the text
 * that runs redis-benchmark. Throws ImportError when the text holds no result.
 */
export function parseRedisBenchmarkText(text: string, options: ImportOptions): ImportedV1 {
  const commandLine = options.commandLine ?? findRedisBenchmarkCommand(text);
  const flags = redisBenchmarkFlags(commandLine);
  const cells: ImportedCell[] = [];
  const derived = new Set<string>();
  let wholeMs = false;
  let block: Block | null = null;

  const finish = () => {
    if (block && block.ops !== null) cells.push(blockCell(block, flags, derived));
    else if (block) throw new ImportError(`test "${block.label}" has no requests-per-second figure`);
    block = null;
  };

  for (const raw of terminalText(text).split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    let m: RegExpExecArray | null;
    if ((m = RE.header.exec(line))) {
      finish();
      block = {
        label: m[1]!,
        requests: null,
        clients: null,
        payload: null,
        keepAlive: null,
        threads: null,
        ops: null,
        latency: emptyLatency(),
        distribution: [],
        part: 'head',
        summaryColumns: null,
      };
      continue;
    }
    if (block) {
      const b: Block = block;
      if ((m = RE.completed.exec(line))) b.requests = Number(m[1]);
      else if ((m = RE.clients.exec(line))) b.clients = Number(m[1]);
      else if ((m = RE.payload.exec(line))) b.payload = Number(m[1]);
      else if ((m = RE.keepAlive.exec(line))) b.keepAlive = m[1] === '1';
      else if ((m = RE.multiThread.exec(line))) b.threads = m[1] === 'no' ? 1 : b.threads;
      else if ((m = RE.threads.exec(line))) b.threads = Number(m[1]);
      else if (line === 'Latency by percentile distribution:') b.part = 'percentiles';
      else if (line === 'Cumulative distribution of latencies:') b.part = 'cumulative';
      else if ((m = RE.distribution.exec(line))) {
        if (b.part === 'percentiles') b.distribution.push({ percent: Number(m[1]), ms: m[2]! });
      } else if (RE.wholeMs.test(line)) wholeMs = true;
      else if ((m = RE.throughput.exec(line))) {
        b.ops = decimal(m[1]!);
        b.part = 'summary';
      } else if (RE.latencySummary.test(line)) b.part = 'summary';
      else if (b.part === 'summary' && RE.summaryHeader.test(line)) b.summaryColumns = line.split(/\s+/);
      else if (b.part === 'summary' && b.summaryColumns && RE.summaryValues.test(line)) {
        const values = line.split(/\s+/);
        if (values.length !== b.summaryColumns.length)
          throw new ImportError(
            `test "${b.label}": latency summary has ${values.length} values for ${b.summaryColumns.length} columns`,
          );
        b.summaryColumns.forEach((column, i) => {
          const field = latencyField(column);
          if (field) b.latency[field] = msToUs(values[i]!);
        });
        b.summaryColumns = null;
      } else if ((m = RE.oldRps.exec(line))) b.ops = decimal(m[1]!);
      else if ((m = RE.quiet.exec(line))) {
        finish();
        cells.push(quietCell(m, flags));
      }
      continue;
    }
    if ((m = RE.quiet.exec(line))) cells.push(quietCell(m, flags));
  }
  finish();

  if (cells.length === 0) throw new ImportError('no redis-benchmark result found in the text');
  const notes: string[] = [];
  if (derived.size > 0)
    notes.push(
      `${[...derived].join(', ')} read from the 'Latency by percentile distribution' lines: the value of the first line at or above the percentile, an upper bound of redis-benchmark's own value there.`,
    );
  if (wholeMs)
    notes.push(
      "The tool printed its latency distribution in the format of redis-benchmark before 6.2 ('N% <= M milliseconds': whole milliseconds unless --precision was given); no percentile is read from it.",
    );
  return importedDocument({
    source: sourceOf('redis-benchmark-text', text, options),
    tool: toolOf('redis-benchmark', commandLine, options),
    cells,
    notes,
  });
}

function blockCell(b: Block, flags: ImportedWorkload, derived: Set<string>): ImportedCell {
  const latency = { ...b.latency };
  for (const [field, target] of TARGETS) {
    if (latency[field] !== null || b.distribution.length === 0) continue;
    latency[field] = percentileFromDistribution(b.distribution, target);
    if (latency[field] !== null) derived.add(field);
  }
  return {
    label: b.label,
    test: testOf(b.label),
    workload: {
      ...flags,
      connections: b.clients ?? flags.connections,
      requests: b.requests ?? flags.requests,
      valueSizeBytes: b.payload ?? flags.valueSizeBytes,
      keepAlive: b.keepAlive ?? flags.keepAlive,
      threads: b.threads ?? flags.threads,
    },
    opsPerSec: b.ops!,
    latencyUs: latency,
  };
}

function quietCell(m: RegExpExecArray, flags: ImportedWorkload): ImportedCell {
  const label = m[1]!.trim();
  const latency = emptyLatency();
  if (m[3] !== undefined) latency.p50Us = msToUs(m[3]);
  return {
    label,
    test: testOf(label),
    workload: { ...flags },
    opsPerSec: decimal(m[2]!),
    latencyUs: latency,
  };
}

/** One CSV record's fields ("" inside quotes is a quote). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      i++;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (line[i] === '"') {
          i++;
          break;
        } else value += line[i++];
      }
      fields.push(value);
      const comma = line.indexOf(',', i);
      i = comma === -1 ? line.length + 1 : comma + 1;
    } else {
      const comma = line.indexOf(',', i);
      const end = comma === -1 ? line.length : comma;
      fields.push(line.slice(i, end).trim());
      i = end + 1;
    }
  }
  return fields;
}

const NUMBER = /^\d+(?:\.\d*)?$/;

/**
 * redis-benchmark --csv output to an imported.v1 document of kind `redis-benchmark-csv`: 6.2+'s
 * header form (`"test","rps","avg_latency_ms",...`; every `*_latency_ms` column the schema has is
 * read) or the older two columns (`"SET","123.45"`). The CSV prints no workload: pass the command
 * line in options to have one.
 */
export function parseRedisBenchmarkCsv(text: string, options: ImportOptions): ImportedV1 {
  const commandLine = options.commandLine ?? null;
  const flags = redisBenchmarkFlags(commandLine);
  const rows = terminalText(text)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .map(csvFields);
  let columns: string[] | null = null;
  if (rows[0] && !NUMBER.test(rows[0][1] ?? '')) columns = rows.shift()!.map((c) => c.toLowerCase());
  const testAt = columns ? columns.indexOf('test') : 0;
  const rpsAt = columns ? columns.indexOf('rps') : 1;
  if (testAt < 0 || rpsAt < 0) throw new ImportError('CSV header has no "test" and "rps" columns');

  const cells = rows.map((fields, n): ImportedCell => {
    const label = fields[testAt];
    const rps = fields[rpsAt];
    if (!label || rps === undefined || !NUMBER.test(rps))
      throw new ImportError(`CSV row ${n + 1} is not "test","rps",...: ${JSON.stringify(fields)}`);
    const latency = emptyLatency();
    columns?.forEach((column, i) => {
      const m = /^(.+)_latency_ms$/.exec(column);
      const field = m ? latencyField(m[1]!) : undefined;
      const value = fields[i];
      if (field && value !== undefined && value !== '') latency[field] = msToUs(value);
    });
    return {
      label,
      test: testOf(label),
      workload: { ...flags },
      opsPerSec: decimal(rps),
      latencyUs: latency,
    };
  });
  if (cells.length === 0) throw new ImportError('no redis-benchmark result found in the CSV');
  return importedDocument({
    source: sourceOf('redis-benchmark-csv', text, options),
    tool: toolOf('redis-benchmark', commandLine, options),
    cells,
    notes: [],
  });
}
