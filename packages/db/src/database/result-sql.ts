// SQL conditions on a result row `r` that live queries share. Their tables come from migrations 7
// (key_signers) and 10 (result_disputes), but a migration is frozen once released, so the queries that
// change take their SQL from here, never from a migration's file.

/**
 * The signer of a result row \`r\` as SQL: its key's signer, else the key itself (null for an
 * imported result). A primary-key lookup in a table of a handful of rows.
 */
export const SIGNER_OF_R = `coalesce((SELECT s.signer FROM key_signers s WHERE s.key_fingerprint = r.key_fingerprint), r.key_fingerprint)`;

/** True when the result row \`r\` is disputed, as SQL: a primary-key lookup in a table of a few rows. */
export const DISPUTED_R = 'EXISTS (SELECT 1 FROM result_disputes d WHERE d.result_id = r.id)';
