/**
 * A run refused or failed before it measured anything; the message says what to do. `code` says
 * which; the CLI turns it into an exit code (ERR_USAGE, ERR_MEMORY_BUDGET and ERR_SERVER_MEMORY: the
 * command line asked for what cannot run).
 */
export class RunnerError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}
