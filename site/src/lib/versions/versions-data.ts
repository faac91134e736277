import { cellFiguresOf, type SiteResultRow, serverBlockOf } from '@redis-benchdb/db';
import { type Bucket, database, machineSlugOf, machines } from '../data/data.js';
import { heldOf } from '../data/standing.js';
import { safeStrings } from '../text/text.js';
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

/**
 * A machine's side-by-side blocks, with ratios to `reference` (each block's first series if none).
 * Only admitted results (standing.ts): a provisional result or an outlier is never a column, so never
 * the reference a version page sets the others against; it is listed with the version's results.
 */
export function blocksOn(
  machine: Bucket,
  reference?: { product: string | null; version: string | null },
): Block[] {
  const rows = machine.rows.filter((r) => heldOf(r.id) === null);
  return machineBlocks(rows, (id) => factsOf(id).persistence, cellsOf, reference);
}

/**
 * The machines on which a version ran the standard suite, in the order the version page shows them.
 * Ordered by admitted results only (standing.ts): held results (a lookalike version, a forged copy)
 * would otherwise add "versions" to a machine and move it to the top of every version page.
 */
export function machinesOf(version: Bucket): { machine: Bucket; versions: number }[] {
  const admitted = (rows: readonly SiteResultRow[]) => rows.filter((r) => heldOf(r.id) === null);
  return machinesInOrder(
    admitted(version.rows),
    machines().map((m) => ({ ...m, rows: admitted(m.rows) })),
    machineSlugOf,
  );
}
