import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  assignSigner,
  type BenchDb,
  defaultDatabasePath,
  resultPagePath,
  storeSubmission,
} from '@redis-benchdb/db';
import { checkSignedHere } from '@redis-benchdb/db/checks';
import { type EnvelopeV1, type ResultV1, signResult } from '@redis-benchdb/result';
import { writeAtomically } from '../atomic-write.js';
import { noServerHelp } from '../config.js';
import { cliName, pnpmName, shellQuote } from '../invocation.js';
import { openLocalDatabase, resultsDir } from '../local-database.js';
import type { SigningKey } from '../signing-key.js';
import { deliverEnvelope, pendingHint, rankLines, setAside, spool } from '../submit.js';
import { repositoryRoot } from './repository.js';
import type { SubmitTarget } from './signing.js';

/** This run's result, signed: the envelope, and the file's text (what --out writes and submit sends). */
export interface SignedResult {
  /** The document as signed, with the key it binds (keyFingerprint): what --json prints. */
  bound: ResultV1;
  envelope: EnvelopeV1;
  text: string;
}

/**
 * Bind and sign the run's document. signResult validates it against result.v1 and checks its identity
 * text, the one validation it gets in this process: what keepAndSubmit checks next is what the
 * service checks after a signature. Our own document failing is a bug; say so rather than publish it.
 */
export function signOwnResult(doc: ResultV1, key: SigningKey): SignedResult {
  const bound = { ...doc, keyFingerprint: key.fingerprint };
  let envelope: EnvelopeV1;
  try {
    envelope = signResult(bound, key.privateKeyPem);
  } catch (err) {
    throw new Error(`the result could not be signed (a redis-benchdb bug): ${(err as Error).message}`);
  }
  return { bound, envelope, text: `${JSON.stringify(envelope, null, 2)}\n` };
}

/** The command that checks a signed file, as the user can paste it. */
export function verifyHint(file: string): string {
  return `${cliName()} verify ${shellQuote(resolve(file))}`;
}

/**
 * The signed result is checked as the service checks a verified one (so a result the service would
 * refuse is refused here too) and kept as a file in results/, which needs no native module; when
 * better-sqlite3 is installed (the repository has it) it also goes into the local database the site
 * builds from. With --submit it goes to the service; when that cannot take it now, or no service is
 * known, into the spool for `submit --pending`.
 */
export async function keepAndSubmit(
  { envelope, text: signed }: SignedResult,
  opts: { store: boolean; db: string | undefined; submit: SubmitTarget },
): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  let ok = true;
  if (opts.store) {
    try {
      // Signed just now by signOwnResult, after its validation: the checks after the signature's only.
      const checked = checkSignedHere(envelope);
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
          vouchForOwnKey(db, checked.row.key_fingerprint);
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

/** The signer a local database names its own runner's key for. */
export const LOCAL_SIGNER = "this database's owner";

/**
 * A local database is its owner's: it names the key `run` signed with as theirs, so the corroboration
 * rule (packages/result corroboration.ts) takes their own results as its anchor and their local site
 * shows them in its summaries. A public service's database is another: this names nothing there. A
 * key the database already names for another signer (the project's data keys) stays as it is.
 */
function vouchForOwnKey(db: BenchDb, keyFingerprint: string): void {
  try {
    assignSigner(db, LOCAL_SIGNER, [keyFingerprint]);
  } catch (err) {
    if ((err as { code?: string }).code !== 'SIGNER_KEYS') throw err;
  }
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
  const out = await deliverEnvelope(to, signed);
  if (out.kind === 'stored')
    return [
      `submitted: ${out.id} ${to}${out.pagePath}${out.duplicate ? ' (already there)' : ''}`,
      ...rankLines(out.ranks, signed),
    ];
  if (out.kind === 'unavailable') {
    // Kept, but the user asked for a submission that did not happen: the run exits 1 and says so.
    failed();
    const path = await spool(signed, to, db);
    return [`error: not submitted: ${out.reason}. Kept in ${path}: send it later with ${pendingHint(db)}`];
  }
  failed();
  const detail = `${out.status} ${out.code}: ${out.message}`;
  const path = await setAside(await spool(signed, to, db), detail);
  return [`error: the service refused the result (${detail}); kept in ${path}`];
}
