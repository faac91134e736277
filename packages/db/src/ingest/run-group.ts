import type { BenchDb } from '../database/open.js';
import { IngestError } from './ingest-error.js';

/** What a result says of its run group (result.v1 `runGroup`): the part stored members must agree with. */
export interface RunGroupClaim {
  id: string;
  index: number;
  size: number;
}

/**
 * A run group belongs to the key that ran it: its identity is (signing key, group id). The id is
 * random, but it is printed in every member, so anyone can copy it into a result of their own; a
 * member from another key would then sit in the group's paired comparisons as if it had run round by
 * round beside the others. So a result naming a group that another key's results hold is refused, and
 * so is one whose size or position contradicts the members stored: every stored group id has exactly
 * one signer (migration 12 also enforces it with a trigger), which is what lets the site, the read
 * API and ranks group by `run_group_id` alone. Retracted members count: retracting a group must not
 * free its id for another key. Runs inside the writer's transaction, so two racing submissions
 * cannot both pass. Throws IngestError.
 */
export function checkRunGroup(
  db: BenchDb,
  resultId: string,
  keyFingerprint: string,
  claim: RunGroupClaim,
): void {
  const members = db.statements.runGroupMembers.all(claim.id).filter((m) => m.id !== resultId);
  if (members.length === 0) return;
  const owner = members[0]!.keyFingerprint;
  if (owner !== keyFingerprint)
    throw new IngestError(
      'RUN_GROUP_NOT_YOURS',
      422,
      `run group ${claim.id} belongs to the key ${owner ?? '(none)'}, which signed the ${plural(members.length, 'member')} stored; this result is signed by ${keyFingerprint}. A run group holds the results of one run, signed by the key that ran it: submit your own run's files as they were signed (each run gets a new group id), or leave runGroup out`,
    );
  const other = members.find((m) => m.size !== claim.size);
  if (other)
    throw new IngestError(
      'RUN_GROUP_MISMATCH',
      422,
      `runGroup.size ${claim.size} contradicts run group ${claim.id}, whose stored member ${other.id} says size ${other.size}: every member of one run carries the same size. Submit the files your run signed, unchanged`,
    );
  const taken = members.find((m) => m.idx === claim.index && m.retractedAt === null);
  if (taken)
    throw new IngestError(
      'RUN_GROUP_MISMATCH',
      422,
      `runGroup.index ${claim.index} of run group ${claim.id} is held by the stored result ${taken.id}: each position of a group is one member. Submit the files your run signed, unchanged, or retract ${taken.id} first`,
    );
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
