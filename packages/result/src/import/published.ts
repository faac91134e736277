// Figures printed in a published document (documentation, a paper, a blog post) to imported.v1.
// The figures are never typed in: they are parsed from exact excerpts of the document, which must
// occur in it verbatim, and the excerpts are kept as the document's `source.quote`. What only the
// document's prose states (the machine, the server version, "50 simultaneous clients") is given
// by the importer, and its notes say where each came from.
import type {
  ImportedMachine,
  ImportedServer,
  ImportedV1,
  ImportedWorkload,
} from '../generated/imported-v1.js';
import { ImportError, type ImportOptions, importedDocument, sourceOf } from './common.js';
import { parseRedisBenchmarkText } from './redis-benchmark.js';

/** The line between two excerpts in `source.quote`. */
export const QUOTE_SEPARATOR = '[...]';

/** The excerpts a quote was joined from. */
export function quoteExcerpts(quote: string): string[] {
  return quote.split(`\n${QUOTE_SEPARATOR}\n`);
}

export interface PublishedRedisBenchmarkInput {
  /** The whole document, as imported: its sha256 is `source.contentSha256`. */
  document: string;
  /**
   * The exact lines the figures (and the redis-benchmark command, when printed) come from, each a
   * verbatim part of `document`, in the document's order.
   */
  excerpts: string[];
  title: string;
  section: string | null;
  url?: string | null;
  publishedAt?: string | null;
  importedAt: string;
  machine: ImportedMachine;
  server: ImportedServer;
  toolVersion?: string | null;
  /**
   * What the document's prose states about every test of the run (`50 simultaneous clients`),
   * laid over what the excerpts' command line and output give; say where it comes from in notes.
   */
  workload?: Partial<ImportedWorkload>;
  notes?: string | null;
}

/**
 * A run of redis-benchmark printed in a document to an imported.v1 document of kind
 * `published-document`. Throws ImportError when an excerpt is not in the document or holds no
 * redis-benchmark result.
 */
export function importPublishedRedisBenchmark(input: PublishedRedisBenchmarkInput): ImportedV1 {
  if (input.excerpts.length === 0) throw new ImportError('no excerpt given');
  let from = 0;
  for (const excerpt of input.excerpts) {
    if (!excerpt.trim()) throw new ImportError('an excerpt is empty');
    if (excerpt.includes(`\n${QUOTE_SEPARATOR}\n`))
      throw new ImportError(`an excerpt holds the separator line`);
    const at = input.document.indexOf(excerpt, from);
    if (at === -1)
      throw new ImportError(
        `excerpt not found verbatim in the document (after the previous one): ${JSON.stringify(excerpt.slice(0, 80))}`,
      );
    from = at + excerpt.length;
  }
  const quote = input.excerpts.join(`\n${QUOTE_SEPARATOR}\n`);
  const options: ImportOptions = {
    title: input.title,
    importedAt: input.importedAt,
    section: input.section,
    url: input.url ?? null,
    publishedAt: input.publishedAt ?? null,
  };
  const parsed = parseRedisBenchmarkText(quote, options);
  return importedDocument({
    source: { ...sourceOf('published-document', input.document, options), quote },
    machine: input.machine,
    server: input.server,
    tool: {
      name: 'redis-benchmark',
      version: input.toolVersion ?? null,
      commandLine: parsed.tool.commandLine,
    },
    cells: parsed.cells.map((cell) => ({ ...cell, workload: { ...cell.workload, ...input.workload } })),
    notes: [parsed.notes, input.notes],
  });
}
