/**
 * Migration 2: run groups. `redis-benchdb run --server-bin A --server-bin B` (or --transport tcp,unix,
 * --persistence ...) signs one result per server, transport and variant, all sharing a `runGroup`; the
 * site shows a group side by side, so its id, label and position are columns, not JSON to parse.
 *
 * Rows stored before this migration are backfilled from their document, as 01-initial-schema.ts promises
 * a column always can be: an imported document, or a signed one without `runGroup`, stays null.
 * The index leads with the id (find a group) and orders by position (list it in run order).
 */
export const RUN_GROUPS = `
ALTER TABLE results ADD COLUMN run_group_id TEXT;
ALTER TABLE results ADD COLUMN run_group_label TEXT;
ALTER TABLE results ADD COLUMN run_group_index INTEGER;

UPDATE results
SET run_group_id = json_extract(document, '$.runGroup.id'),
    run_group_label = json_extract(document, '$.runGroup.label'),
    run_group_index = json_extract(document, '$.runGroup.index')
WHERE kind = 'signed' AND json_type(document, '$.runGroup') = 'object';

CREATE INDEX results_by_run_group ON results (run_group_id, run_group_index);
`;
