/** Starting a server failed: no binary, bad options, or the server did not become ready. */
export class ServerLaunchError extends Error {
  readonly code = 'ERR_SERVER_LAUNCH';
  override readonly name = 'ServerLaunchError';
  constructor(
    message: string,
    /** The last lines the server logged (stdout and stderr), oldest first. */
    readonly log: string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
