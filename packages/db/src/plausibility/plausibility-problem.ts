// Its own file because both plausibility.ts and histogram-agreement.ts report problems of this shape,
// and plausibility.ts calls histogram-agreement.ts: with the type in either, the two would import each other.

/** One reason a signed, schema-valid result cannot be stored as it stands. */
export interface PlausibilityProblem {
  /** JSON Pointer of the offending value, e.g. `/cells/0/latencyUs/p99Us`. */
  path: string;
  /** The path, then why: `/cells/0/latencyUs/p99Us: 300 is below p50Us (434): percentiles cannot decrease`. */
  message: string;
  /** Set when a histogram could not be decoded at all (ingest answers INVALID_HISTOGRAM, not IMPLAUSIBLE). */
  code?: 'INVALID_HISTOGRAM';
}
