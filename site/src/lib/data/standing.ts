import { resultStandings, standingsOfResults } from '@redis-benchdb/db';
import { type Standing, standingReason } from '@redis-benchdb/result';
import { onlyResultPages } from '../build/only-results.js';
import { database } from './data.js';

/**
 * The corroboration rule's answer for each result (packages/result corroboration.ts, read through db
 * ranking/standing.ts): what every summary leaves out, and what a result's page marks. Read once per
 * build (the build's database does not change under it), and before any walk over a query: SQLite
 * runs no other statement on a connection while one iterates.
 */
let standings: Map<string, Standing> | null = null;
export function allStandings(): Map<string, Standing> {
  standings ??= resultStandings(database());
  return standings;
}

export function standingOfResult(id: string): Standing | undefined {
  // A build of new result pages alone judges each within its kind only (db standingsOfResults).
  if (onlyResultPages()) return standingsOfResults(database(), [id]).get(id);
  return allStandings().get(id);
}

/** PROVISIONAL or OUTLIER when the rule holds the result out of every summary; null when it counts. */
export function heldOf(id: string): 'PROVISIONAL' | 'OUTLIER' | null {
  return standingReason(standingOfResult(id));
}
