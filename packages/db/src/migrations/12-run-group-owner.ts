/**
 * Migration 12: a run group belongs to the key that ran it (ingest/run-group.ts). Before it, a result of
 * another key naming a stored group's id joined the group (issue 39). Such a result is taken out of the
 * group here, not deleted: its columns run_group_* become null, so no view pairs it with the group's
 * members; its signed document is unchanged. The group stays with the key of its first member received.
 * The trigger then keeps every stored group id to one key, whatever writes the table: ingest refuses
 * first, with a clear message (RUN_GROUP_NOT_YOURS), so the trigger's error is a last line only.
 */
export const RUN_GROUP_OWNER = `
UPDATE results
   SET run_group_id = NULL, run_group_label = NULL, run_group_index = NULL
 WHERE run_group_id IS NOT NULL
   AND key_fingerprint IS NOT (
     SELECT o.key_fingerprint FROM results o
      WHERE o.run_group_id = results.run_group_id
      ORDER BY o.received_at, o.id LIMIT 1);

CREATE TRIGGER results_run_group_one_key_insert BEFORE INSERT ON results
WHEN NEW.run_group_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM results o
   WHERE o.run_group_id = NEW.run_group_id AND o.key_fingerprint IS NOT NEW.key_fingerprint)
BEGIN
  SELECT RAISE(ABORT, 'RUN_GROUP_NOT_YOURS: a run group holds the results of one key');
END;

CREATE TRIGGER results_run_group_one_key_update BEFORE UPDATE OF run_group_id, key_fingerprint ON results
WHEN NEW.run_group_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM results o
   WHERE o.run_group_id = NEW.run_group_id AND o.id <> NEW.id
     AND o.key_fingerprint IS NOT NEW.key_fingerprint)
BEGIN
  SELECT RAISE(ABORT, 'RUN_GROUP_NOT_YOURS: a run group holds the results of one key');
END;
`;
