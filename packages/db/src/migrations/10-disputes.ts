/**
 * Migration 10: results whose measurements more than one key claims (disputes.ts). A row says that
 * `key_fingerprint`, through its result `other_result_id`, claims the measurements of `result_id`.
 * For a payload signed before results bound their key, another key may have sent the very payload
 * stored: `other_result_id` is then `result_id` itself. Rows are only ever added: a dispute outlives
 * the retraction of either side, or the later retraction would hand the measurements to the other.
 */
export const RESULT_DISPUTES = `
CREATE TABLE result_disputes (
  result_id TEXT NOT NULL REFERENCES results (id),
  key_fingerprint TEXT NOT NULL,
  other_result_id TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  PRIMARY KEY (result_id, key_fingerprint, other_result_id)
) STRICT, WITHOUT ROWID;
`;
