import { once } from 'node:events';
import { defineCommand, type FlagsOf, flag } from '@redis-benchdb/command';
import { defaultDatabasePath, exportResults } from '@redis-benchdb/db';
import { CliError, EXIT_USAGE } from '../errors.js';
import { needLocalDatabase } from '../local-database.js';
import { database } from '../options/common.js';

const EXPORT_OPTIONS = {
  db: database(),
  jsonl: flag('--jsonl', 'one result per line: signed envelopes and imported documents'),
};

export default defineCommand({
  name: 'export',
  description: 'print every listed result of the database, one JSON document per line (open data)',
  options: EXPORT_OPTIONS,
  run: (flags) => exportCommand(flags),
});

/**
 * `redis-benchdb export --jsonl`: the open data, one result per line. Signed results are exported
 * as their envelopes, so anyone can verify them with `redis-benchdb verify`; imported ones as the
 * imported.v1 document naming their source. Retracted results are left out.
 */
export async function exportCommand(flags: FlagsOf<typeof EXPORT_OPTIONS>): Promise<number> {
  if (!flags.jsonl)
    throw new CliError('choose a format: --jsonl (one JSON result per line)', 'ERR_USAGE', EXIT_USAGE);
  const db = needLocalDatabase('export --jsonl', flags.db ?? defaultDatabasePath(), { readonly: true });
  try {
    for (const r of exportResults(db)) {
      // Respect back-pressure: a large database piped into a slow consumer must not fill memory.
      if (!process.stdout.write(`${JSON.stringify(r)}\n`)) await once(process.stdout, 'drain');
    }
  } finally {
    db.close();
  }
  return 0;
}
