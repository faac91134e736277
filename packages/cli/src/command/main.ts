import { type AnyCommand, buildProgram, type ProgramMeta } from '@redis-benchdb/command';
import { exitCodeFor } from './exit-code.js';

/** Each command's module, loaded when used. */
export type CommandList = Readonly<Record<string, () => Promise<AnyCommand>>>;

/**
 * Parse argv and run the command it names; returns the exit code. Only the named command's module
 * is loaded, so `keygen` or `verify --help` does not load the engine; the program's own help, its
 * version and an unknown command load them all (the help lists every command, and commander
 * suggests the nearest name).
 */
export async function runMain(meta: ProgramMeta, list: CommandList, argv: string[]): Promise<number> {
  try {
    const name = argv[2];
    const names = name !== undefined && Object.hasOwn(list, name) ? [name] : Object.keys(list);
    const commands = await Promise.all(names.map((n) => list[n]!()));
    await buildProgram(meta, commands).parseAsync(argv);
    return Number(process.exitCode ?? 0);
  } catch (err) {
    const { message, code } = exitCodeFor(err);
    if (message) process.stderr.write(`error: ${message}\n`);
    return code;
  }
}
