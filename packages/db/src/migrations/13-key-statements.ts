/**
 * Migration 13: what key owners have said about their keys (keys/). A rotation: `key_fingerprint`
 * names `successor_fingerprint` as its successor, which may then retract the key's results; one per
 * key. A revocation: `key_fingerprint` is not to be trusted from `recorded_at` on; its results are
 * retracted and it may sign nothing more here. `statement` is the signed statement as received (the
 * proof), `revoked_by` the key that signed the revocation (the key itself, or a successor).
 */
export const KEY_STATEMENTS = `
CREATE TABLE key_rotations (
  key_fingerprint TEXT PRIMARY KEY,
  successor_fingerprint TEXT NOT NULL,
  statement TEXT NOT NULL,
  recorded_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX key_rotations_successor ON key_rotations (successor_fingerprint);
CREATE TABLE key_revocations (
  key_fingerprint TEXT PRIMARY KEY,
  revoked_by TEXT NOT NULL,
  statement TEXT NOT NULL,
  recorded_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
`;
