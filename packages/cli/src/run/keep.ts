import { rename, writeFile } from 'node:fs/promises';
import { defaultDatabasePath, ingest, openDatabase, resultPagePath } from '@redis-benchdb/db';
import { pendingHint, postEnvelope, rankLines, setAside, spool } from '../submit.js';

/**
 * The signed result goes into the local database (the same ingest() as the service, so a result
 * the service would refuse is refused here too) and, with --submit, to the service; when the
 * service cannot take it now, into the spool for `submit --pending`.
 */
export async function keepAndSubmit(
  signed: string,
  opts: { store: boolean; db: string | undefined; submitTo: string | null },
): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  let ok = true;
  let id: string | null = null;
  if (opts.store) {
    const dbPath = opts.db ?? defaultDatabasePath();
    const db = openDatabase(dbPath);
    try {
      id = ingest(db, signed).id;
      lines.push(`stored in ${dbPath} as ${id}`);
      // The site builds from the same database: say how to see the result there.
      const env = opts.db ? `REDIS_BENCHDB_DB=${dbPath} ` : '';
      lines.push(
        `see it on the local site: ${env}pnpm site:build && pnpm site:preview, then open http://localhost:4321${resultPagePath(id)}`,
      );
    } catch (err) {
      ok = false;
      lines.push(`error: the local database refused the result: ${(err as Error).message}`);
    } finally {
      db.close();
    }
  }
  if (opts.submitTo) {
    const out = await postEnvelope(opts.submitTo, signed);
    if (out.kind === 'stored')
      lines.push(
        `submitted: ${out.id} ${opts.submitTo}${out.pagePath}${out.duplicate ? ' (already there)' : ''}`,
        ...rankLines(out.ranks),
      );
    else if (out.kind === 'unavailable') {
      const path = await spool(signed, opts.submitTo, opts.db);
      lines.push(`not submitted: ${out.reason}. Kept in ${path}: send it later with ${pendingHint(opts.db)}`);
    } else {
      ok = false;
      const path = await setAside(
        await spool(signed, opts.submitTo, opts.db),
        `${out.status} ${out.code}: ${out.message}`,
      );
      lines.push(
        `error: the service refused the result (${out.status} ${out.code}: ${out.message}); kept in ${path}`,
      );
    }
  }
  return { ok, lines };
}

export async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}
