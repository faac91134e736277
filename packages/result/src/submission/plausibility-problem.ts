import type { Problem } from '../problem.js';

// Its own file because both plausibility.ts and histogram-agreement.ts report problems of this shape,
// and plausibility.ts calls histogram-agreement.ts: with the type in either, the two would import each other.

/**
 * One reason a signed, schema-valid result cannot be stored as it stands. INVALID_HISTOGRAM when a
 * histogram could not be decoded at all (its figures could not be checked); IMPLAUSIBLE otherwise.
 */
export type PlausibilityProblem = Problem<'IMPLAUSIBLE' | 'INVALID_HISTOGRAM'>;
