import { canonicalJson, keyFingerprint } from '@redis-benchdb/result';
import type Database from 'better-sqlite3';
import type { BenchDb } from '../database/open.js';
import { verifyKeyRevocation, verifyKeyRotation } from './key-statement.js';
import { KeyStatementError } from './key-statement-error.js';

export interface RotationOutcome {
  keyFingerprint: string;
  successorFingerprint: string;
  /** When this service recorded it: now, or the first time it was sent. */
  recordedAt: string;
  /** It was recorded before; nothing changed. */
  alreadyRecorded: boolean;
}

export interface RevocationOutcome {
  keyFingerprint: string;
  /** The key that signed the revocation: the key itself, or a successor. */
  revokedBy: string;
  /** When this service recorded it: now, or the first time it was sent. */
  revokedAt: string;
  /** The results it retracted now. */
  retracted: string[];
  /**
   * Results of the key it left listed: each is disputed (another key sent the very same payload), and
   * retracting it would take it from that key too (retract.ts says the same to a retraction).
   */
  keptDisputed: string[];
  alreadyRevoked: boolean;
}

interface Prepared {
  successor: Database.Statement<[string], { successor_fingerprint: string }>;
  rotation: Database.Statement<[string], { successor_fingerprint: string; recorded_at: string }>;
  insertRotation: Database.Statement<[string, string, string, string]>;
  revocation: Database.Statement<[string], { revoked_by: string; recorded_at: string }>;
  insertRevocation: Database.Statement<[string, string, string, string]>;
  resultsOf: Database.Statement<[string], { id: string; disputed: number }>;
  retract: Database.Statement<[string, string, string]>;
}
const statements = new WeakMap<BenchDb, Prepared>();

function prepared(db: BenchDb): Prepared {
  let st = statements.get(db);
  if (!st) {
    const q = db.sqlite;
    st = {
      successor: q.prepare('SELECT successor_fingerprint FROM key_rotations WHERE key_fingerprint = ?'),
      rotation: q.prepare(
        'SELECT successor_fingerprint, recorded_at FROM key_rotations WHERE key_fingerprint = ?',
      ),
      insertRotation: q.prepare(
        'INSERT INTO key_rotations (key_fingerprint, successor_fingerprint, statement, recorded_at) VALUES (?, ?, ?, ?)',
      ),
      revocation: q.prepare('SELECT revoked_by, recorded_at FROM key_revocations WHERE key_fingerprint = ?'),
      insertRevocation: q.prepare(
        'INSERT INTO key_revocations (key_fingerprint, revoked_by, statement, recorded_at) VALUES (?, ?, ?, ?)',
      ),
      // A claim on the very row (other_result_id = result_id) is what makes retracting it take it from another key.
      resultsOf: q.prepare(
        `SELECT r.id, EXISTS (SELECT 1 FROM result_disputes d WHERE d.result_id = r.id AND d.other_result_id = r.id) AS disputed
         FROM results r WHERE r.kind = 'signed' AND r.key_fingerprint = ? AND r.retracted_at IS NULL ORDER BY r.id`,
      ),
      retract: q.prepare(
        'UPDATE results SET retracted_at = ?, retraction = ? WHERE id = ? AND retracted_at IS NULL',
      ),
    };
    statements.set(db, st);
  }
  return st;
}

/** The keys that succeed `fingerprint`, nearest first: its successor, that key's successor, and so on. */
export function successorsOf(db: BenchDb, fingerprint: string): string[] {
  const chain: string[] = [];
  const seen = new Set([fingerprint]);
  for (let at = fingerprint; ; ) {
    const next = prepared(db).successor.get(at)?.successor_fingerprint;
    if (next === undefined || seen.has(next)) return chain;
    chain.push(next);
    seen.add(next);
    at = next;
  }
}

/** When and by whom `fingerprint` was revoked here, or undefined. */
export function revocationOf(
  db: BenchDb,
  fingerprint: string,
): { revokedBy: string; revokedAt: string } | undefined {
  const row = prepared(db).revocation.get(fingerprint);
  return row && { revokedBy: row.revoked_by, revokedAt: row.recorded_at };
}

/**
 * Record a signed rotation: the old key names its successor, which may then retract the old key's
 * results (retract.ts). A key is rotated once; sending the same rotation again changes nothing.
 * Throws KeyStatementError.
 */
export function recordRotation(db: BenchDb, statement: unknown, opts: { now?: Date } = {}): RotationOutcome {
  const check = verifyKeyRotation(statement);
  if (!check.ok) throw refused(check.code, `invalid key rotation: ${check.reason}`);
  const key = check.keyFingerprint;
  const successor = keyFingerprint(Buffer.from(check.statement.successorPublicKey, 'base64'));
  if (successor === key)
    throw refused('MALFORMED_REQUEST', 'invalid key rotation: a key cannot succeed itself');
  const st = prepared(db);
  return db.sqlite
    .transaction((): RotationOutcome => {
      const revoked = revocationOf(db, key);
      if (revoked)
        throw new KeyStatementError(
          'KEY_REVOKED',
          409,
          `the key ${key} was revoked here on ${revoked.revokedAt}: a revoked key names no successor`,
        );
      const earlier = st.rotation.get(key);
      if (earlier?.successor_fingerprint === successor)
        return {
          keyFingerprint: key,
          successorFingerprint: successor,
          recordedAt: earlier.recorded_at,
          alreadyRecorded: true,
        };
      if (earlier)
        throw new KeyStatementError(
          'ALREADY_ROTATED',
          409,
          `the key ${key} already named its successor here, ${earlier.successor_fingerprint}, on ${earlier.recorded_at}; a key is rotated once. If that successor is not yours, the key has leaked: revoke it (redis-benchdb revoke)`,
        );
      if (successorsOf(db, successor).includes(key))
        throw new KeyStatementError(
          'ROTATION_CYCLE',
          409,
          `the key ${successor} is already a successor of ${key}'s successor chain`,
        );
      const recordedAt = (opts.now ?? new Date()).toISOString();
      st.insertRotation.run(key, successor, canonicalJson(check.statement), recordedAt);
      return { keyFingerprint: key, successorFingerprint: successor, recordedAt, alreadyRecorded: false };
    })
    .immediate();
}

/**
 * Record a signed revocation: from now on the key signs nothing here (ingest refuses it), and every
 * result it signed is retracted, the statement kept as the proof. It may be signed by the key itself
 * or by one of its successors (a key whose holder lost the old one). Idempotent. Throws KeyStatementError.
 */
export function recordRevocation(
  db: BenchDb,
  statement: unknown,
  opts: { now?: Date } = {},
): RevocationOutcome {
  const check = verifyKeyRevocation(statement);
  if (!check.ok) throw refused(check.code, `invalid key revocation: ${check.reason}`);
  const signer = check.keyFingerprint;
  const key = check.statement.revokedKeyFingerprint;
  const st = prepared(db);
  return db.sqlite
    .transaction((): RevocationOutcome => {
      if (signer !== key && !successorsOf(db, key).includes(signer))
        throw new KeyStatementError(
          'NOT_YOUR_KEY',
          403,
          `the revocation of ${key} is signed by ${signer}, which is neither that key nor a successor it named (keygen --rotate): sign it with the key itself, or with its successor`,
        );
      const earlier = revocationOf(db, key);
      const base = { keyFingerprint: key, retracted: [], keptDisputed: [] };
      if (earlier) return { ...base, ...earlier, alreadyRevoked: true };
      const revokedAt = (opts.now ?? new Date()).toISOString();
      const proof = canonicalJson(check.statement);
      st.insertRevocation.run(key, signer, proof, revokedAt);
      const rows = st.resultsOf.all(key);
      const retracted = rows.filter((r) => !r.disputed).map((r) => r.id);
      for (const id of retracted) st.retract.run(revokedAt, proof, id);
      const keptDisputed = rows.filter((r) => r.disputed).map((r) => r.id);
      return {
        keyFingerprint: key,
        revokedBy: signer,
        revokedAt,
        retracted,
        keptDisputed,
        alreadyRevoked: false,
      };
    })
    .immediate();
}

function refused(code: 'MALFORMED_REQUEST' | 'BAD_SIGNATURE', message: string): KeyStatementError {
  return new KeyStatementError(code, code === 'MALFORMED_REQUEST' ? 400 : 422, message);
}
