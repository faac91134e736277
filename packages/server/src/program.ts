import { buildProgram, type ProgramMeta } from '@redis-benchdb/command';
import { type Command, CommanderError, type OutputConfiguration } from 'commander';
import { serveCommand } from './args.js';
import { restoreCommand } from './restore-command.js';
import type { ServeOptions } from './serve.js';
import { UsageError } from './usage-error.js';

// The `redis-benchdb-server` bin as one program defined the way the CLI's is (@redis-benchdb/command):
// the service's flags on the program itself, `restore` as its one command. Only runServerBin turns
// an error into output and an exit code.

/** What follows a usage error, as the CLI says it. */
const HINT = '(run with --help for usage)';

/** The program: `serve` gets the options of a command line without a command. */
export function serverProgram(
  env: NodeJS.ProcessEnv,
  serve: (options: ServeOptions) => void | Promise<void>,
  output: OutputConfiguration = {},
): Command {
  const main = serveCommand(env, serve);
  const meta: ProgramMeta = {
    name: main.name,
    description: main.description,
    main,
    help: { flags: '-h, --help', description: 'show this help' },
    errorHint: HINT,
    // As the service's command line always has been: `restore BACKUP extra` ignores extra, and
    // `--port x --bogus` says what is wrong with --port.
    allowExcessArguments: true,
    parseAsRead: true,
  };
  return buildProgram(meta, [restoreCommand]).configureOutput(output);
}

export type ParsedArgs = { help: true } | { help: false; options: ServeOptions };

/**
 * The options `redis-benchdb-server ARGV` would serve with, or a UsageError saying what is wrong
 * with ARGV; nothing is printed. The command line of `restore` is not read here.
 */
export function parseServerArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ParsedArgs {
  if (argv[0] === 'restore') throw new Error("parseServerArgs reads the service's flags, not restore's");
  let options: ServeOptions | undefined;
  const quiet = { writeOut: () => {}, writeErr: () => {} };
  try {
    const capture = (o: ServeOptions) => {
      options = o;
    };
    serverProgram(env, capture, quiet).parse(argv, { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    if (e.exitCode === 0) return { help: true };
    throw new UsageError(e.message.replace(/^error: /, ''));
  }
  if (options === undefined) throw new Error(`parseServerArgs: no options from ${argv.join(' ')}`);
  return { help: false, options };
}

/**
 * Runs the program on process.argv-style ARGV and gives the exit code: 0 after --help, 2 for a
 * command line it cannot run (commander has printed its own errors; a UsageError is printed here),
 * else what the command set.
 */
export async function runServerBin(program: Command, argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return Number(process.exitCode ?? 0);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\n${HINT}\n`);
    return 2;
  }
}
