/**
 * Migration 6: a covering index for "did this cell reply mostly errors?" (a warning ERRORS on the
 * cell). Every cohort, rank and explorer walk asks it once per member; through the warnings' primary
 * key it read each of the result's warning rows (messages included): at 10,000 results that check was
 * most of a cohort's cost, and a submit's rank read four cohorts on the event loop.
 */
export const WARNINGS_INDEX = `
CREATE INDEX warnings_by_cell ON warnings (result_id, cell_label, code);
`;
