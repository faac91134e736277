import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ImportError,
  type ImportedV1,
  importPublishedRedisBenchmark,
  importPublishedTable,
  isTableQuote,
  parseMarkdownTable,
  parseRedisBenchmarkText,
  quoteExcerpts,
  sha256Of,
  tableCells,
  validateImported,
  versionColumns,
} from '../src/index.js';

// data/imported/: published results, one run per file. Nothing in them may be typed in: every
// figure must stand verbatim in the file's quote and come out of it when the quote is parsed.
const ROOT = new URL('../../../', import.meta.url);
const DIR = new URL('data/imported/', ROOT);
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const read = (f: string) => JSON.parse(readFileSync(new URL(f, DIR), 'utf8')) as ImportedV1;

/**
 * The documents the files were imported from. They are third-party text kept outside the repository
 * (scripts/import-published.mjs reads them from ../shared/reference and takes each quote and
 * contentSha256 from them), and a test reads only the repository: so this check runs only where the
 * documents are copied into data/imported/reference/, and otherwise says why it skips. It used to look
 * beside the checkout and in a fixed path of one machine, so its outcome depended on where it ran.
 */
const REFERENCE = new URL('reference/', DIR);
const NO_REFERENCE =
  'the source documents are not in the repository (third-party text): copy them into data/imported/reference/ to check the quotes against them';

describe('data/imported', () => {
  it('holds the imported results', () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  describe.each(files)('%s', (file) => {
    const doc = read(file);

    it('is a valid imported.v1 document from a published document', () => {
      expect(validateImported(doc)).toEqual({ ok: true });
      expect(doc.source.kind).toBe('published-document');
      expect(doc.source.quote).toBeTypeOf('string');
      expect(doc.notes).toBeTypeOf('string');
    });

    it('has every opsPerSec verbatim in its quote', () => {
      const quote = doc.source.quote!;
      // The rates the quote prints, as numbers: `200000.00 requests per second` is 200000; in a
      // side-by-side table, the cells of this version's own rps column.
      const rates = new Set(
        isTableQuote(quote)
          ? parseMarkdownTable(quote).map((row) => Number(row[versionColumns(doc.server.version!).opsPerSec]))
          : [...quote.matchAll(/(\d+(?:\.\d+)?) requests per second/g)].map((m) => Number(m[1])),
      );
      for (const cell of doc.cells) {
        expect(quote).toContain(String(cell.opsPerSec));
        expect(rates.has(cell.opsPerSec), `${cell.opsPerSec} is not a rate the quote prints`).toBe(true);
      }
    });

    it('has exactly the figures its quote gives when parsed', () => {
      const figures = (cells: ImportedV1['cells']) =>
        cells.map((c) => ({ label: c.label, test: c.test, ops: c.opsPerSec, latency: c.latencyUs }));
      if (isTableQuote(doc.source.quote!)) {
        const cells = tableCells(doc.source.quote!, versionColumns(doc.server.version!));
        expect(figures(doc.cells)).toEqual(figures(cells));
        return;
      }
      const parsed = parseRedisBenchmarkText(doc.source.quote!, {
        title: 't',
        importedAt: doc.source.importedAt,
      });
      expect(figures(doc.cells)).toEqual(figures(parsed.cells));
      expect(doc.tool.commandLine).toBe(parsed.tool.commandLine);
    });

    it('quotes its source document verbatim, and names it by its sha256', (ctx) => {
      ctx.skip(!existsSync(REFERENCE), NO_REFERENCE);
      const sources = readdirSync(REFERENCE).map((f) => readFileSync(new URL(f, REFERENCE), 'utf8'));
      const source = sources.find((text) => sha256Of(text) === doc.source.contentSha256);
      expect(source, 'no reference document has this contentSha256').toBeDefined();
      for (const excerpt of quoteExcerpts(doc.source.quote!)) expect(source).toContain(excerpt);
    });
  });

  it('imports no published figure twice', () => {
    const seen = new Map<string, string>();
    for (const file of files)
      for (const cell of read(file).cells) {
        const key = `${cell.label} ${cell.opsPerSec}`;
        expect(seen.get(key), `${key} is in ${seen.get(key)} and ${file}`).toBeUndefined();
        seen.set(key, file);
      }
  });
});

describe('importPublishedRedisBenchmark', () => {
  const document = [
    'Some page',
    'Fast box (with pipelining)',
    '$ ./redis-benchmark -n 1000 -t set -P 16 -q',
    'SET: 12345.67 requests per second',
    'The end.',
  ].join('\n');
  const input = {
    document,
    excerpts: [document.split('\n').slice(1, 4).join('\n')],
    title: 'Some page',
    section: null,
    importedAt: '2025-11-21T12:00:00Z',
    machine: {
      description: 'Fast box',
      cpuModel: null,
      cores: null,
      virtualization: null,
      provider: null,
      instanceType: null,
    },
    server: { product: 'redis' as const, version: '2.6.14' },
  };

  it('parses the figures from the excerpts and keeps them as the quote', () => {
    const doc = importPublishedRedisBenchmark({
      ...input,
      workload: { connections: 50 },
      notes: 'Fifty: the page says so.',
    });
    expect(validateImported(doc)).toEqual({ ok: true });
    expect(doc.source.quote).toBe(input.excerpts[0]);
    expect(doc.source.contentSha256).toBe(sha256Of(document));
    expect(doc.tool.commandLine).toBe('./redis-benchmark -n 1000 -t set -P 16 -q');
    expect(doc.cells).toEqual([
      {
        label: 'SET',
        test: 'SET',
        workload: {
          connections: 50,
          pipelineDepth: 16,
          valueSizeBytes: null,
          keyspaceSize: null,
          requests: 1000,
          threads: null,
          ratio: null,
          keepAlive: null,
          durationSec: null,
        },
        opsPerSec: 12345.67,
        latencyUs: {
          avgUs: null,
          minUs: null,
          p50Us: null,
          p90Us: null,
          p95Us: null,
          p99Us: null,
          p999Us: null,
          maxUs: null,
        },
      },
    ]);
    expect(doc.notes).toBe('Fifty: the page says so.');
  });

  it('joins several excerpts with a [...] line', () => {
    const doc = importPublishedRedisBenchmark({ ...input, excerpts: ['Some page', input.excerpts[0]!] });
    expect(quoteExcerpts(doc.source.quote!)).toEqual(['Some page', input.excerpts[0]]);
  });

  it('refuses an excerpt that is not in the document verbatim, or out of order', () => {
    expect(() =>
      importPublishedRedisBenchmark({ ...input, excerpts: ['SET: 12345.68 requests per second'] }),
    ).toThrow(ImportError);
    expect(() =>
      importPublishedRedisBenchmark({ ...input, excerpts: [input.excerpts[0]!, 'Some page'] }),
    ).toThrow(/not found verbatim/);
  });
});

describe('importPublishedTable', () => {
  const document = [
    'A comparison',
    '| command | pipeline | value bytes | 1.0 rps | 2.0 rps | 1.0 avg ms | 2.0 avg ms |',
    '|---|---|---|---|---|---|---|',
    '| SET | 10 | 16 | 1000.50 | 1100.25 | 1.54 | - |',
    '| get | 1 | 128 | 900.00 | 950.10 | 0.263 | 0.5 |',
    'The end.',
  ].join('\n');
  const table = document.split('\n').slice(1, 5).join('\n');
  const input = {
    document,
    table,
    title: 'A comparison',
    importedAt: '2026-11-28T12:00:00Z',
    machine: {
      description: 'a box',
      cpuModel: null,
      cores: null,
      virtualization: null,
      provider: null,
      instanceType: null,
    },
    tool: { name: 'valkey-benchmark' as const, version: null, commandLine: null },
    workload: { connections: 50 },
    notes: 'Fifty: the page says so.',
  };

  it("takes one version's columns, with each row's workload, and keeps the table as the quote", () => {
    const doc = importPublishedTable({ ...input, server: { product: 'valkey', version: '2.0' } });
    expect(validateImported(doc)).toEqual({ ok: true });
    expect(doc.source.quote).toBe(table);
    expect(doc.source.contentSha256).toBe(sha256Of(document));
    expect(doc.cells.map((c) => [c.label, c.test, c.opsPerSec, c.latencyUs.avgUs])).toEqual([
      ['SET (pipeline 10, 16-byte values)', 'SET', 1100.25, null],
      ['GET (pipeline 1, 128-byte values)', 'GET', 950.1, 500],
    ]);
    expect(doc.cells[1]!.workload).toMatchObject({ connections: 50, pipelineDepth: 1, valueSizeBytes: 128 });
    const old = importPublishedTable({ ...input, server: { product: 'valkey', version: '1.0' } });
    // Milliseconds by decimal shift: 0.263 ms is exactly 263 us.
    expect(old.cells.map((c) => c.latencyUs.avgUs)).toEqual([1540, 263]);
  });

  it('refuses a table that is not in the document, or a version it has no column for', () => {
    expect(() =>
      importPublishedTable({
        ...input,
        table: table.replace('1000.50', '1000.51'),
        server: { product: 'valkey', version: '1.0' },
      }),
    ).toThrow(/not found verbatim/);
    expect(() => importPublishedTable({ ...input, server: { product: 'valkey', version: '3.0' } })).toThrow(
      /no column "3.0 rps"/,
    );
  });
});
