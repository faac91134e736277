/**
 * Migration 7: which signing keys belong to one signer. A signer (a person, a company, this project)
 * may sign with several keys: this project makes a new data key on each fresh machine it measures
 * on. Everything that counts independent evidence (the headline, a cohort's rank, the explorer's
 * bars) counts signers, so that two keys of one signer never pass for two submitters.
 *
 * A key with no row here is its own signer: the signer's name is then the key's fingerprint. Rows
 * are only ever added by whoever runs the database (`pnpm db:build` from data/results/keys/, the
 * service's --project-keys): a submitter cannot claim another's signer, and nothing a submission
 * carries writes here. Results need no backfill: the signer is looked up when counted, so a key
 * named after its results were stored counts as its signer's from then on.
 */
export const KEY_SIGNERS = `
CREATE TABLE key_signers (
  key_fingerprint TEXT PRIMARY KEY,
  signer TEXT NOT NULL CHECK (signer <> '')
) STRICT, WITHOUT ROWID;
`;
