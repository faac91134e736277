import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { custom, defineCommand, type FlagsOf, text } from '@redis-benchdb/command';
import { defaultDatabasePath, ingestImported } from '@redis-benchdb/db';
import {
  IMPORTED_SCHEMA_ID,
  type ImportedV1,
  parseMemtierJson,
  parseRedisBenchmarkCsv,
  parseRedisBenchmarkText,
} from '@redis-benchdb/result';
import { CliError, EXIT_USAGE } from '../errors.js';
import { needLocalDatabase } from '../local-database.js';
import { database, json } from '../options/common.js';

const FORMATS = ['auto', 'redis-benchmark', 'redis-benchmark-csv', 'memtier', 'imported'] as const;
type Format = (typeof FORMATS)[number];
const DEFAULT_FORMAT: Format = 'auto';

const IMPORT_OPTIONS = {
  db: database(),
  // Checked when a file is read, so that every file gets its outcome (and --json reports it).
  format: custom(
    '--format <format>',
    'auto, redis-benchmark, redis-benchmark-csv, memtier or imported',
    (v) => v as Format,
    { default: DEFAULT_FORMAT },
  ),
  title: text('--title <text>', 'the source to name (default: the file name)'),
  url: text('--url <url>', 'where the output was published, if it was'),
  json: json('print each stored id as JSON'),
};

export type ImportFlags = FlagsOf<typeof IMPORT_OPTIONS>;

export default defineCommand({
  name: 'import',
  description:
    'store redis-benchmark output (text, -q or --csv) or memtier_benchmark JSON as imported results',
  argument: { usage: '<file...>', help: 'files to import' },
  options: IMPORT_OPTIONS,
  run: (flags, files) => importCommand(files, flags),
});

/**
 * `redis-benchdb import FILE...`: store the output of redis-benchmark (text, -q or --csv) or a
 * memtier_benchmark --json-out-file document as an unsigned imported result, with the file named as
 * its source. Whatever the file does not state stays null.
 */
export async function importCommand(files: string[], flags: ImportFlags): Promise<number> {
  const dbPath = flags.db ?? defaultDatabasePath();
  const db = needLocalDatabase('import', dbPath);
  const outcomes: {
    file: string;
    ok: boolean;
    id?: string;
    duplicate?: boolean;
    cells?: number;
    format?: string;
    error?: string;
  }[] = [];
  try {
    for (const file of files) {
      try {
        const text = await readFile(file, 'utf8');
        const { doc, format } = toImported(text, flags.format ?? DEFAULT_FORMAT, {
          title: flags.title ?? basename(file),
          importedAt: new Date().toISOString(),
          ...(flags.url ? { url: flags.url } : {}),
        });
        const out = ingestImported(db, doc);
        outcomes.push({
          file,
          ok: true,
          id: out.id,
          duplicate: out.duplicate,
          cells: doc.cells.length,
          format,
        });
      } catch (err) {
        outcomes.push({ file, ok: false, error: (err as Error).message });
      }
    }
  } finally {
    db.close();
  }
  if (flags.json) process.stdout.write(`${JSON.stringify({ db: dbPath, results: outcomes }, null, 2)}\n`);
  else {
    for (const o of outcomes) {
      process.stdout.write(
        o.ok
          ? `${o.file}: ${o.duplicate ? 'already stored as' : 'stored'} ${o.id} (${o.format}, ${o.cells} cell${o.cells === 1 ? '' : 's'})\n`
          : `${o.file}: FAILED: ${o.error}\n`,
      );
    }
    process.stderr.write(`database: ${dbPath}\n`);
  }
  return outcomes.every((o) => o.ok) ? 0 : 1;
}

function toImported(
  text: string,
  format: Format,
  opts: { title: string; importedAt: string; url?: string },
): { doc: ImportedV1; format: string } {
  const chosen = format === 'auto' ? detect(text) : format;
  switch (chosen) {
    case 'imported':
      return { doc: JSON.parse(text) as ImportedV1, format: 'imported.v1' };
    case 'memtier':
      return { doc: parseMemtierJson(text, opts), format: 'memtier_benchmark JSON' };
    case 'redis-benchmark-csv':
      return { doc: parseRedisBenchmarkCsv(text, opts), format: 'redis-benchmark --csv' };
    case 'redis-benchmark':
      return { doc: parseRedisBenchmarkText(text, opts), format: 'redis-benchmark output' };
    default:
      throw new CliError(
        `unknown --format ${JSON.stringify(format)}: expected auto, redis-benchmark, redis-benchmark-csv, memtier or imported`,
        'ERR_USAGE',
        EXIT_USAGE,
      );
  }
}

/** JSON is memtier's or our own imported.v1; quoted comma-separated lines are CSV; anything else is redis-benchmark's text. */
function detect(text: string): Format {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    const doc = JSON.parse(trimmed) as Record<string, unknown>;
    if (doc.schema === IMPORTED_SCHEMA_ID) return 'imported';
    if ('ALL STATS' in doc || 'configuration' in doc) return 'memtier';
    throw new Error(
      'a JSON file that is neither a memtier_benchmark --json-out-file document nor an imported.v1 result',
    );
  }
  return /^"[^"]+","[\d.]+"/m.test(trimmed) || trimmed.startsWith('"test","rps"')
    ? 'redis-benchmark-csv'
    : 'redis-benchmark';
}
