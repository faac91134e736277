import { cellFiguresOf, serverBlockOf } from '@redis-benchdb/db';
import { type Bucket, database, machineSlugOf, machines } from './data.js';
import { safeStrings } from './text.js';
import { type Block, machineBlocks, machinesInOrder, type ServerFacts, serverFacts } from './versions.js';

/** The version and machine pages' reads: server facts and cell figures, each read once per build. */
const facts = new Map<string, ServerFacts>();
export function factsOf(id: string): ServerFacts {
  let f = facts.get(id);
  if (!f) {
    f = safeStrings(serverFacts(serverBlockOf(database(), id)));
    facts.set(id, f);
  }
  return f;
}

// Labels are submitted text (an ad hoc run's), cleaned like every other string a page shows.
const cellsOf = (ids: readonly string[]) => safeStrings(cellFiguresOf(database(), ids));

/** A machine's side-by-side blocks, with ratios to `reference` (each block's first series if none). */
export function blocksOn(
  machine: Bucket,
  reference?: { product: string | null; version: string | null },
): Block[] {
  return machineBlocks(machine.rows, (id) => factsOf(id).persistence, cellsOf, reference);
}

/** The machines on which a version ran the standard suite, in the order the version page shows them. */
export function machinesOf(version: Bucket): { machine: Bucket; versions: number }[] {
  return machinesInOrder(version.rows, machines(), machineSlugOf);
}
