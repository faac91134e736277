import { readFile } from 'node:fs/promises';
import { verifyEnvelope } from '@redis-benchdb/result';

/** `redis-benchdb verify FILE...`: schema and signature of each signed result; non-zero if any fails. */
export async function verifyCommand(files: string[], flags: { json?: boolean }): Promise<number> {
  const outcomes = [];
  for (const file of files) {
    let outcome: {
      file: string;
      ok: boolean;
      reason?: string;
      keyFingerprint?: string;
      cells?: number;
      suite?: string | null;
    };
    try {
      const text = await readFile(file, 'utf8');
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch (err) {
        // JSON.parse quotes the file; keep the reason on one line.
        throw new Error(
          `not JSON (${(err as Error).message.replace(/\s+/g, ' ')}): was the file cut short or edited?`,
        );
      }
      const v = verifyEnvelope(doc);
      outcome = v.ok
        ? {
            file,
            ok: true,
            keyFingerprint: v.keyFingerprint,
            cells: v.result.cells.length,
            suite: v.result.suite ? `${v.result.suite.id}/${v.result.suite.profile}` : null,
          }
        : { file, ok: false, reason: v.reason };
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
