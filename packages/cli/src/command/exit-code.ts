import { CliError, EXIT_USAGE } from '../errors.js';

/** Turn a thrown error into a message and an exit code; commander's own errors are usage errors. */
export function exitCodeFor(err: unknown): { message: string | null; code: number } {
  const e = err as { code?: string; exitCode?: number; message?: string };
  if (err instanceof CliError) return { message: err.message, code: err.exitCode };
  if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
    const quiet =
      e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
    return { message: null, code: quiet ? 0 : EXIT_USAGE };
  }
  if (e.code === 'ERR_OPTIONS' || e.code === 'ERR_UNKNOWN_TEST' || e.code === 'ERR_KEY_PATTERN')
    return { message: e.message ?? String(err), code: EXIT_USAGE };
  if (typeof e.code === 'string' && e.code.startsWith('ERR_'))
    return { message: e.message ?? String(err), code: 1 };
  return {
    message: `unexpected failure: ${(err as Error)?.stack ?? String(err)}\nPlease report this with the command you ran.`,
    code: 1,
  };
}
