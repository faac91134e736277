/** An error the CLI reports as one line and an exit code; the message says what to do. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Exit codes: 1 the run failed or is incomplete, 2 the command line is wrong, 130 interrupted (SIGTERM 143, SIGHUP 129: run/stop.ts). */
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;
