import { CliError, EXIT_USAGE } from '../errors.js';

/**
 * The codes of the errors a command line is to blame for: the engine's options, and what the runner
 * (@redis-benchdb/runner's RunnerError) refuses to plan, such as a plan over the memory budget.
 */
const USAGE_CODES: ReadonlySet<string> = new Set([
  'ERR_OPTIONS',
  'ERR_UNKNOWN_TEST',
  'ERR_KEY_PATTERN',
  'ERR_USAGE',
  'ERR_MEMORY_BUDGET',
  'ERR_SERVER_MEMORY',
]);

/** Turn a thrown error into a message and an exit code; commander's own errors are usage errors. */
export function exitCodeFor(err: unknown): { message: string | null; code: number } {
  const e = err as { code?: string; exitCode?: number; message?: string };
  if (err instanceof CliError) return { message: err.message, code: err.exitCode };
  if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
    const quiet =
      e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
    return { message: null, code: quiet ? 0 : EXIT_USAGE };
  }
  if (typeof e.code === 'string' && USAGE_CODES.has(e.code))
    return { message: e.message ?? String(err), code: EXIT_USAGE };
  if (typeof e.code === 'string' && e.code.startsWith('ERR_'))
    return { message: e.message ?? String(err), code: 1 };
  return {
    message: `unexpected failure: ${(err as Error)?.stack ?? String(err)}\nPlease report this with the command you ran.`,
    code: 1,
  };
}
