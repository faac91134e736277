export type HistogramErrorCode =
  /** Not HdrHistogram's compressed V2 encoding, or cut short, or inconsistent with its own header. */
  | 'HISTOGRAM_MALFORMED'
  /** Claims more buckets, bytes or values than a latency histogram of this format can hold. */
  | 'HISTOGRAM_TOO_LARGE';

/** Why an encoded histogram was refused. The message says what was wrong, in the histogram's own terms. */
export class HistogramError extends Error {
  override name = 'HistogramError';

  constructor(
    readonly code: HistogramErrorCode,
    message: string,
  ) {
    super(message);
  }
}
