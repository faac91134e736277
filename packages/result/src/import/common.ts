// What the importers share: the options every parser takes, exact unit conversion, the terminal's
// view of text with carriage returns, and the skeleton of an imported document.
import { createHash } from 'node:crypto';
import type {
  ImportedCell,
  ImportedLatency,
  ImportedMachine,
  ImportedServer,
  ImportedSource,
  ImportedTool,
  ImportedV1,
  ImportedWorkload,
} from '../generated/imported-v1.js';

/** The input is not what the parser reads, or states nothing that could be imported. */
export class ImportError extends Error {
  readonly code = 'ERR_IMPORT';
  override readonly name = 'ImportError';
}

/** What a parser cannot read from the text itself. */
export interface ImportOptions {
  /** The file's name, or the document's title and where it is from. */
  title: string;
  /** ISO 8601 date-time of the import (passed in, so that parsing stays pure). */
  importedAt: string;
  section?: string | null;
  url?: string | null;
  /** 2013, 2013-07 or 2013-07-01, as the source gives it. */
  publishedAt?: string | null;
  /**
   * The command that produced the output, when known. Its flags fill the workload fields the
   * output does not print (redis-benchmark prints no -P, -r or -n in its -q and CSV forms); what
   * the output prints wins where both say something.
   */
  commandLine?: string | null;
  /** The tool's version, when known (neither redis-benchmark nor memtier prints it in its output). */
  toolVersion?: string | null;
}

const LATENCY_FIELD: Record<string, keyof ImportedLatency> = {
  avg: 'avgUs',
  min: 'minUs',
  max: 'maxUs',
  p50: 'p50Us',
  p90: 'p90Us',
  p95: 'p95Us',
  p99: 'p99Us',
  'p99.9': 'p999Us',
};

/** `p99.90`, `p99.900`, `p99_9`... to the field name; undefined for a percentile the schema lacks. */
export function latencyField(name: string): keyof ImportedLatency | undefined {
  const direct = LATENCY_FIELD[name];
  if (direct) return direct;
  const m = /^p(\d+)(?:[._](\d+))?$/.exec(name);
  if (!m) return undefined;
  const value = Number(`${m[1]}.${m[2] ?? '0'}`);
  const key = Object.keys(LATENCY_FIELD).find((k) => k.startsWith('p') && Number(k.slice(1)) === value);
  return key ? LATENCY_FIELD[key] : undefined;
}

/** `sha256:<hex>` of the text's UTF-8 bytes. */
export function sha256Of(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

const DECIMAL = /^(\d+)(?:\.(\d*))?$/;

/**
 * Milliseconds, as printed, to microseconds: a decimal shift of the digits, so that `0.263` is
 * exactly 263 and `93.030` is 93030 (1.001 * 1000 in floating point is 1000.9999999999999).
 */
export function msToUs(ms: string): number {
  const m = DECIMAL.exec(ms.trim());
  if (!m) throw new ImportError(`not a number of milliseconds: ${JSON.stringify(ms)}`);
  const whole = m[1]!;
  const frac = (m[2] ?? '').padEnd(3, '0');
  return Number(`${whole}${frac.slice(0, 3)}.${frac.slice(3) || '0'}`);
}

/** A JSON number of milliseconds (memtier prints them with %.3f) to microseconds, exactly. */
export function msNumberToUs(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) throw new ImportError(`not a number of milliseconds: ${ms}`);
  const text = String(ms);
  return DECIMAL.test(text) ? msToUs(text) : Math.round(ms * 1e6) / 1e3;
}

/** A decimal number as printed (`95238.10`, `200000.00`) to a number; throws on anything else. */
export function decimal(text: string): number {
  if (!DECIMAL.test(text.trim())) throw new ImportError(`not a decimal number: ${JSON.stringify(text)}`);
  return Number(text.trim());
}

/**
 * What a terminal shows for text that redraws lines with carriage returns (redis-benchmark's
 * progress lines): within each line, a `\r` moves back to column 0 and later characters overwrite
 * earlier ones; trailing blanks are dropped. `\r\n` line ends therefore read as `\n`.
 */
export function terminalText(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (!line.includes('\r')) return line.trimEnd();
      const screen: string[] = [];
      let col = 0;
      for (const ch of line) {
        if (ch === '\r') col = 0;
        else screen[col++] = ch;
      }
      return screen.join('').trimEnd();
    })
    .join('\n');
}

/**
 * Words of a command line, as a POSIX shell would split it for simple quoting ('...', "...", \x),
 * without expansions. `script load "redis.call('set','foo','bar')"` is three words.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * The command a test exercises, from the name the tool printed: the first word, upper case,
 * without redis-benchmark 6+'s suffixes (`PING_INLINE` -> PING, `LRANGE_100 (first 100
 * elements)` -> LRANGE, `script load ...` -> SCRIPT).
 */
export function testOf(label: string): string {
  const first = label.trim().split(/[\s(]/)[0] ?? '';
  const command = first.replace(/_[A-Z0-9]+$/i, '').toUpperCase();
  return command || label.trim();
}

export function emptyLatency(): ImportedLatency {
  return {
    avgUs: null,
    minUs: null,
    p50Us: null,
    p90Us: null,
    p95Us: null,
    p99Us: null,
    p999Us: null,
    maxUs: null,
  };
}

export function emptyWorkload(): ImportedWorkload {
  return {
    connections: null,
    pipelineDepth: null,
    valueSizeBytes: null,
    keyspaceSize: null,
    requests: null,
    threads: null,
    ratio: null,
    keepAlive: null,
    durationSec: null,
  };
}

/** A machine the source says nothing about. */
function unknownMachine(): ImportedMachine {
  return {
    description: null,
    cpuModel: null,
    cores: null,
    virtualization: null,
    provider: null,
    instanceType: null,
  };
}

/** A server the output does not name: neither redis-benchmark nor memtier prints what answered. */
function unknownServer(): ImportedServer {
  return { product: 'unknown', version: null };
}

export function sourceOf(kind: ImportedSource['kind'], text: string, options: ImportOptions): ImportedSource {
  if (!options.title) throw new ImportError('a title is required');
  if (!options.importedAt) throw new ImportError('importedAt is required');
  return {
    kind,
    title: options.title,
    section: options.section ?? null,
    url: options.url ?? null,
    publishedAt: options.publishedAt ?? null,
    importedAt: options.importedAt,
    contentSha256: sha256Of(text),
    quote: null,
  };
}

export function toolOf(
  name: ImportedTool['name'],
  commandLine: string | null,
  options: ImportOptions,
): ImportedTool {
  return { name, version: options.toolVersion ?? null, commandLine };
}

/** What an importer found: the source and tool it read, its cells, and what it can say of the run. */
export interface ImportedParts {
  source: ImportedSource;
  /** @default unknownMachine() */
  machine?: ImportedMachine;
  /** @default unknownServer() */
  server?: ImportedServer;
  tool: ImportedTool;
  cells: ImportedCell[];
  /** Joined into one note; null and empty ones are left out. */
  notes: (string | null | undefined)[];
}

/** The imported.v1 document every importer returns, built the one way. */
export function importedDocument(parts: ImportedParts): ImportedV1 {
  const notes = parts.notes.filter((n): n is string => !!n);
  return {
    schema: 'redis-benchdb/imported.v1',
    source: parts.source,
    machine: parts.machine ?? unknownMachine(),
    server: parts.server ?? unknownServer(),
    tool: parts.tool,
    cells: parts.cells,
    notes: notes.length > 0 ? notes.join(' ') : null,
  };
}

export type { ImportedV1 };
