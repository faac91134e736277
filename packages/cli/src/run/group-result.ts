import path from 'node:path';
import { isErrorDominated, type MemberResult, type RunRequest, removedLine } from '@redis-benchdb/runner';
import { writeAtomically } from '../atomic-write.js';
import type { SigningKey } from '../signing-key.js';
import { CSV_HEADER, csvRow } from './format.js';
import { keepAndSubmit, signOwnResult, verifyHint } from './keep.js';
import type { SubmitTarget } from './signing.js';
import { reportWrongReplies, warningLines } from './warning-lines.js';

export interface KeepContext {
  flags: RunRequest;
  signing: { key: SigningKey; submit: SubmitTarget };
}

/**
 * A member's end, as a single run's: sign its result (built by the runner's runGroup), print, write,
 * store and submit it, and say so. Returns the member's exit code.
 */
export async function keepMember(
  { member: m, doc, cleanup, first }: MemberResult,
  ctx: KeepContext,
): Promise<number> {
  const log = (s: string) => process.stderr.write(`${m.tag} ${s}\n`);
  const { flags, signing } = ctx;
  const mode = flags.json ? 'json' : flags.csv ? 'csv' : 'text';
  const signed = signOwnResult(doc, signing.key);
  // A group prints one document per line (JSON Lines), so that stdout stays parseable.
  // What --json prints is what is signed: the document with the key it binds (keyFingerprint).
  if (mode === 'json') process.stdout.write(`${JSON.stringify(signed.bound)}\n`);
  if (mode === 'csv') {
    if (first) process.stdout.write(`${CSV_HEADER}\n`);
    for (const c of m.summaries) process.stdout.write(`${csvRow(c)}\n`);
  }
  const out = flags.out ? memberOutPath(flags.out, m.plan.index) : undefined;
  if (out) await writeAtomically(out, signed.text);
  const kept = await keepAndSubmit(signed, {
    store: flags.store !== false,
    db: flags.db,
    submit: signing.submit,
  });
  if (cleanup.error) log(cleanup.error);
  else if (mode === 'text') log(removedLine(cleanup.removedKeys ?? 0, m.session.prefix));
  if (mode === 'text') for (const line of warningLines(doc.warnings)) log(line);
  if (out) log(`wrote ${out}, signed by ${signing.key.fingerprint} (check it with: ${verifyHint(out)})`);
  for (const line of kept.lines) log(line);
  if (m.failure) {
    log(`error: ${m.failure} (the cells before it are kept; this result is marked incomplete)`);
    return 1;
  }
  const failed = doc.cells.find((c) => c.incomplete && c.error);
  if (failed && !doc.interrupted)
    log(`error: ${failed.label}: ${failed.error}. The result is partial and marked incomplete.`);
  // As a single run: a cell whose replies were mostly errors fails the run unless --allow-errors.
  const erroring = flags.allowErrors ? [] : m.summaries.filter(isErrorDominated);
  if (erroring.length > 0)
    log(
      `error: most replies were errors in ${erroring.map((c) => c.label).join(', ')} (warning ERRORS); the result is kept with the warning. Remove the cause (the server's error says it), or pass --allow-errors if the errors are what you meant to measure.`,
    );
  const wrong = reportWrongReplies(doc, log);
  return doc.incomplete || !kept.ok || erroring.length > 0 || wrong ? 1 : 0;
}

/** `r.json` → `r.2.json`: each member of a group writes its own signed file. */
export function memberOutPath(out: string, index: number): string {
  const ext = path.extname(out);
  return `${out.slice(0, out.length - ext.length)}.${index}${ext || '.json'}`;
}
