import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { defaultDatabasePath, resultPagePath, storeSubmission } from '@redis-benchdb/db';
import { checkSubmission } from '@redis-benchdb/db/checks';
import { writeAtomically } from '../atomic-write.js';
import { noServerHelp } from '../config.js';
import { cliName, pnpmName, shellQuote } from '../invocation.js';
import { openLocalDatabase, resultsDir } from '../local-database.js';
import { pendingHint, postEnvelope, rankLines, setAside, spool } from '../submit.js';
import { repositoryRoot } from './repository.js';
import type { SubmitTarget } from './signing.js';

/** The command that checks a signed file, as the user can paste it. */
export function verifyHint(file: string): string {
  return `${cliName()} verify ${shellQuote(resolve(file))}`;
}

/**
 * The signed result is checked as the service would check it (so a result the service would refuse
 * is refused here too) and kept as a file in results/, which needs no native module; when
 * better-sqlite3 is installed (the repository has it) it also goes into the local database the site
 * builds from. With --submit it goes to the service; when that cannot take it now, or no service is
 * known, into the spool for `submit --pending`.
 */
export async function keepAndSubmit(
  signed: string,
  opts: { store: boolean; db: string | undefined; submit: SubmitTarget },
): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  let ok = true;
  if (opts.store) {
    try {
      const checked = checkSubmission(signed);
      const file = join(resultsDir(opts.db), `${checked.id}.json`);
      await mkdir(dirname(file), { recursive: true });
      await writeAtomically(file, signed);
      lines.push(`kept in ${file}`);
      lines.push(`look at it: ${cliName()} view ${checked.id} (writes one HTML page and prints its path)`);
      const dbPath = opts.db ?? defaultDatabasePath();
      const db = openLocalDatabase(dbPath);
      if (db) {
        try {
          storeSubmission(db, checked);
          lines.push(`stored in ${dbPath} as ${checked.id}`);
          const root = repositoryRoot();
          // The site builds from that database, but only a clone of the repository has the site.
          if (root) {
            const env = opts.db ? `REDIS_BENCHDB_DB=${shellQuote(resolve(dbPath))} ` : '';
            const pnpm = pnpmName();
            lines.push(
              `see it on the local site: cd ${shellQuote(root)} && ${env}${pnpm} site:build && ${pnpm} site:preview, then open http://localhost:4321${resultPagePath(checked.id)}`,
            );
          }
        } finally {
          db.close();
        }
      }
    } catch (err) {
      ok = false;
      lines.push(`error: the result was refused for the local record: ${(err as Error).message}`);
    }
  }
  if (opts.submit) lines.push(...(await submitOne(signed, opts.submit.to, opts.db, () => (ok = false))));
  return { ok, lines };
}

async function submitOne(
  signed: string,
  to: string | null,
  db: string | undefined,
  failed: () => void,
): Promise<string[]> {
  if (to === null) {
    // Nothing is lost: the result waits until the user names a service.
    const path = await spool(signed, null, db);
    return [
      `not submitted: there is no public service yet and none was named (${noServerHelp()}). Kept in ${path}: send it later with ${pendingHint(db, true)}`,
    ];
  }
  const out = await postEnvelope(to, signed);
  if (out.kind === 'stored')
    return [
      `submitted: ${out.id} ${to}${out.pagePath}${out.duplicate ? ' (already there)' : ''}`,
      ...rankLines(out.ranks, signed),
    ];
  if (out.kind === 'unavailable') {
    const path = await spool(signed, to, db);
    return [`not submitted: ${out.reason}. Kept in ${path}: send it later with ${pendingHint(db)}`];
  }
  failed();
  const detail = `${out.status} ${out.code}: ${out.message}`;
  const path = await setAside(await spool(signed, to, db), detail);
  return [`error: the service refused the result (${detail}); kept in ${path}`];
}
