// Figures published as a Markdown table of two versions side by side (valkey-io/valkey#1026 as
// shared/reference re-tabulates it) to one imported.v1 document per version. As with
// published.ts, nothing is typed in: the table is an exact excerpt of the document, and every
// figure is parsed from it, so a test can parse the quote again and get the file's cells.
import type {
  ImportedCell,
  ImportedMachine,
  ImportedServer,
  ImportedTool,
  ImportedWorkload,
} from '../generated/imported-v1.js';
import {
  decimal,
  emptyLatency,
  emptyWorkload,
  ImportError,
  type ImportOptions,
  importedDocument,
  msToUs,
  sourceOf,
} from './common.js';

/** A Markdown table's rows, each a map from its header's text to the cell's text, both trimmed. */
export function parseMarkdownTable(text: string): Record<string, string>[] {
  const lines = text.split('\n').filter((l) => l.trim().startsWith('|'));
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((c) => c.trim());
  const [head, rule, ...body] = lines;
  if (!head || !rule || !/^[\s|:-]+$/.test(rule))
    throw new ImportError('no Markdown table (header and rule lines) in the excerpt');
  const names = cells(head);
  return body.map((line, i) => {
    const row = cells(line);
    if (row.length !== names.length)
      throw new ImportError(`table row ${i + 1} has ${row.length} cells, the header ${names.length}`);
    return Object.fromEntries(names.map((n, j) => [n, row[j]!]));
  });
}

/** The columns of one version, and the columns that describe each row's workload. */
export interface TableColumns {
  command: string;
  pipeline: string;
  valueBytes: string;
  /** Requests per second of the version this document is for. */
  opsPerSec: string;
  /** Average latency in milliseconds of that version, where the table has it. */
  avgMs?: string;
}

/** A table's column names for one version, as valkey#1026's re-tabulation heads them. */
export function versionColumns(version: string): TableColumns {
  return {
    command: 'command',
    pipeline: 'pipeline',
    valueBytes: 'value bytes',
    opsPerSec: `${version} rps`,
    avgMs: `${version} avg ms`,
  };
}

/** A row's label: its command and the settings that set it apart from the table's other rows. */
export function tableRowLabel(command: string, pipeline: number, valueBytes: number): string {
  return `${command} (pipeline ${pipeline}, ${valueBytes}-byte values)`;
}

/** The cells of one version, parsed from a table excerpt. `-` (not printed) is null. */
export function tableCells(table: string, columns: TableColumns): ImportedCell[] {
  return parseMarkdownTable(table).map((row) => {
    const get = (name: string) => {
      const v = row[name];
      if (v === undefined) throw new ImportError(`the table has no column ${JSON.stringify(name)}`);
      return v;
    };
    const command = get(columns.command).toUpperCase();
    const pipeline = decimal(get(columns.pipeline));
    const valueBytes = decimal(get(columns.valueBytes));
    const opsPerSec = decimal(get(columns.opsPerSec));
    const avg = columns.avgMs ? get(columns.avgMs) : '-';
    const workload: ImportedWorkload = {
      ...emptyWorkload(),
      pipelineDepth: pipeline,
      valueSizeBytes: valueBytes,
    };
    return {
      label: tableRowLabel(command, pipeline, valueBytes),
      test: command,
      workload,
      opsPerSec,
      latencyUs: { ...emptyLatency(), avgUs: avg === '-' ? null : msToUs(avg) },
    };
  });
}

export interface PublishedTableInput extends ImportOptions {
  /** The whole document: its sha256 is `source.contentSha256`. */
  document: string;
  /** The table's exact lines, a verbatim part of `document`. */
  table: string;
  machine: ImportedMachine;
  /** The version whose columns this document takes (versionColumns). */
  server: ImportedServer & { version: string };
  tool: ImportedTool;
  /** What the document's prose states about every row (`50 clients`); say where in notes. */
  workload?: Partial<ImportedWorkload>;
  notes: string;
}

/** One version's figures from a published side-by-side table, as an imported.v1 document. */
export function importPublishedTable(input: PublishedTableInput) {
  if (!input.document.includes(input.table))
    throw new ImportError('the table is not found verbatim in the document');
  const cells = tableCells(input.table, versionColumns(input.server.version));
  if (cells.length === 0) throw new ImportError('the table has no rows');
  return importedDocument({
    source: { ...sourceOf('published-document', input.document, input), quote: input.table },
    machine: input.machine,
    server: input.server,
    tool: input.tool,
    cells: cells.map((c) => ({ ...c, workload: { ...c.workload, ...input.workload } })),
    notes: [input.notes],
  });
}

/** Whether a quote is a table this module parses (else redis-benchmark output, published.ts). */
export function isTableQuote(quote: string): boolean {
  return quote.trimStart().startsWith('|');
}
