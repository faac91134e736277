/** A command line the bin cannot run: it prints the message with a pointer to --help and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly code = 'USAGE';
}
