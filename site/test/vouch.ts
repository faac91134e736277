import { assignSigner, type BenchDb } from '@redis-benchdb/db';
import type { SigningKey } from '@redis-benchdb/result';
import { fingerprintOf } from '@redis-benchdb/testing';

/**
 * Name `key`'s signer in the fixture's database, as an operator names a submitter it knows: the
 * corroboration rule (packages/result corroboration.ts) then takes its results as anchors, so a
 * fixture made of one key's results shows them in every summary, as before the rule. One key, one
 * signer: nothing else the fixture counts changes.
 */
export function vouchFor(db: BenchDb, key: SigningKey, signer = 'fixture signer'): void {
  assignSigner(db, signer, [fingerprintOf(key)]);
}
