import type Database from 'better-sqlite3';
import type { BenchDb } from '../database/open.js';

/**
 * Who measured a result cannot be read from its bytes: anyone holding a signed file (a shared file,
 * a CI artifact) can bind its measurements to a key of their own and sign them. So when the same
 * measurements arrive under a second key, neither is believed: both results are disputed, kept out
 * of every rank, cohort, explorer bar and noise figure (their queries leave DISPUTED_R out), and neither key
 * gains anything over the other's result. The first to arrive is never given the measurements, and
 * the later is never refused: its owner's result is stored and shown, disputed (docs/DEPLOY.md,
 * "Who owns a result").
 */
export interface DisputeRow {
  /** The result whose measurements are claimed. */
  resultId: string;
  /** The other key that claims them. */
  keyFingerprint: string;
  /** That key's result: `resultId` itself when it sent the very same payload (results that bind no key). */
  otherResultId: string;
  recordedAt: string;
}

type Statements = {
  insert: Database.Statement<[string, string, string, string], unknown>;
  of: Database.Statement<[string], DisputeRow>;
};
const statements = new WeakMap<BenchDb, Statements>();

function prepared(db: BenchDb): Statements {
  let st = statements.get(db);
  if (!st) {
    st = {
      insert: db.sqlite.prepare(
        'INSERT OR IGNORE INTO result_disputes (result_id, key_fingerprint, other_result_id, recorded_at) VALUES (?, ?, ?, ?)',
      ),
      of: db.sqlite.prepare(
        `SELECT result_id AS resultId, key_fingerprint AS keyFingerprint, other_result_id AS otherResultId,
                recorded_at AS recordedAt
           FROM result_disputes WHERE result_id = ? ORDER BY recorded_at, key_fingerprint, other_result_id`,
      ),
    };
    statements.set(db, st);
  }
  return st;
}

/** Record that `keyFingerprint`, through `otherResultId`, claims `resultId`'s measurements. Idempotent. */
export function recordDispute(
  db: BenchDb,
  resultId: string,
  keyFingerprint: string,
  otherResultId: string,
  recordedAt: string,
): void {
  prepared(db).insert.run(resultId, keyFingerprint, otherResultId, recordedAt);
}

/** The other claims on a result's measurements, oldest first; empty when it is not disputed. */
export function disputesOf(db: BenchDb, resultId: string): DisputeRow[] {
  return prepared(db).of.all(resultId);
}
