import { readFile } from 'node:fs/promises';
import { defineCommand } from '@redis-benchdb/command';
import { verifyEnvelopeText } from '@redis-benchdb/result';
import { json } from '../options/common.js';

export default defineCommand({
  name: 'verify',
  description: 'check the schema and signature of signed result files; exits non-zero if any fails',
  argument: { usage: '<file...>', help: 'signed result files written by run --out' },
  options: { json: json('print the outcome of each file as JSON') },
  run: (flags, files) => verifyCommand(files, flags),
});

/**
 * `redis-benchdb verify FILE...`: structure (no duplicate keys, no deep nesting), schema and signature of
 * each signed result; non-zero if any fails.
 */
export async function verifyCommand(files: string[], flags: { json?: boolean }): Promise<number> {
  const outcomes = [];
  for (const file of files) {
    let outcome: {
      file: string;
      ok: boolean;
      /** Which check failed (packages/result VerifyCode): for programs, as `reason` is for people. */
      code?: string;
      reason?: string;
      keyFingerprint?: string;
      cells?: number;
      suite?: string | null;
    };
    try {
      const text = await readFile(file, 'utf8');
      // From the text: a file with two `payload` keys (or nested 100,000 deep) is refused as such.
      const v = verifyEnvelopeText(text);
      outcome = v.ok
        ? {
            file,
            ok: true,
            keyFingerprint: v.keyFingerprint,
            cells: v.result.cells.length,
            suite: v.result.suite ? `${v.result.suite.id}/${v.result.suite.profile}` : null,
          }
        : { file, ok: false, code: v.code, reason: v.message };
    } catch (err) {
      outcome = { file, ok: false, reason: (err as Error).message };
    }
    outcomes.push(outcome);
    if (!flags.json) {
      process.stdout.write(
        outcome.ok
          ? `${file}: ok, signed by ${outcome.keyFingerprint}, ${outcome.cells} cells${outcome.suite ? `, suite ${outcome.suite}` : ''}\n`
          : `${file}: FAILED: ${outcome.reason}\n`,
      );
    }
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(outcomes, null, 2)}\n`);
  return outcomes.every((o) => o.ok) ? 0 : 1;
}
