import { Command, Option } from 'commander';
import { type FlagsOf, type OptionDefs, parseFlags, type RawValue } from './option.js';

/** What a positional argument gives run(): `[a...]`/`<a...>` every word, `<a>` one, `[a]` one or none. */
export type ArgValue<U> = U extends `${string}...${string}`
  ? string[]
  : U extends `[${string}]`
    ? string | undefined
    : U extends string
      ? string
      : undefined;

/**
 * A command, as citty defines one: its name and description, its positional argument, its options
 * (each with its help, its parser and the default --help shows), help text after the options, and
 * its run(), which gets the typed flags and returns the exit code.
 */
export interface CommandDef<O extends OptionDefs = OptionDefs, A extends string | undefined = undefined> {
  readonly name: string;
  readonly description: string;
  readonly argument?: { readonly usage: A; readonly help: string };
  readonly options: O;
  readonly helpAfter?: string;
  run(flags: FlagsOf<O>, arg: ArgValue<A>): Promise<number>;
}

// biome-ignore lint/suspicious/noExplicitAny: a list holds commands of every flags type
export type AnyCommand = CommandDef<any, any>;

export function defineCommand<const O extends OptionDefs, const A extends string | undefined = undefined>(
  def: CommandDef<O, A>,
): CommandDef<O, A> {
  return def;
}

/** The program's own line (what its --help says above the commands) and the flags every command shares. */
export interface ProgramMeta {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  /** The version flag's spelling, e.g. `-v, --version` (commander's own is `-V, --version`). */
  readonly versionFlags?: string;
  /** The help flag's spelling and help, on the program and on each command (commander's own otherwise). */
  readonly help?: { readonly flags: string; readonly description: string };
  /** What follows a usage error's message, e.g. `(run with --help for usage)`. */
  readonly errorHint?: string;
}

/** Calls a command's run(); tests pass their own to see the flags a command line gives. */
export type Runner = (def: AnyCommand, flags: Record<string, unknown>, arg: unknown) => Promise<number>;

const runIt: Runner = (def, flags, arg) => def.run(flags, arg as never);

/** The commander program for these commands; each action parses its flags, then runs. */
export function buildProgram(meta: ProgramMeta, commands: readonly AnyCommand[], runner = runIt): Command {
  const program = new Command(meta.name)
    .description(meta.description)
    .version(meta.version, meta.versionFlags)
    .configureOutput({ outputError: (s, write) => write(s) })
    .exitOverride();
  if (meta.help) program.helpOption(meta.help.flags, meta.help.description);
  if (meta.errorHint !== undefined) program.showHelpAfterError(meta.errorHint);
  for (const def of commands) addCommand(program, def, meta, runner);
  return program;
}

function addCommand(program: Command, def: AnyCommand, meta: ProgramMeta, runner: Runner): void {
  const cmd = program.command(def.name).description(def.description);
  if (meta.help) cmd.helpOption(meta.help.flags, meta.help.description);
  if (def.argument) cmd.argument(def.argument.usage, def.argument.help);
  for (const [key, o] of Object.entries(def.options as OptionDefs)) {
    const option = new Option(o.flags, o.help);
    // The key is what run() reads: it must be the name commander gives the flag.
    if (option.attributeName() !== key)
      throw new Error(`${def.name}: option "${key}" must be named ${option.attributeName()} (${o.flags})`);
    if (o.choices) option.choices(o.choices);
    if (o.shownDefault !== undefined) option.default(o.shownDefault);
    if (o.repeatable) option.argParser(collect);
    cmd.addOption(option);
  }
  if (def.helpAfter) cmd.addHelpText('after', def.helpAfter);
  cmd.action(async (...params: unknown[]) => {
    const self = params.at(-1) as Command;
    const flags = parseFlags(def.options as OptionDefs, typedFlags(self));
    process.exitCode = await runner(def, flags, def.argument ? params[0] : undefined);
  });
}

/** A repeatable option's values, in the order given. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Only flags the user typed: the defaults commander holds are for --help, the libraries have their own. */
function typedFlags(cmd: Command): Record<string, RawValue> {
  const flags: Record<string, RawValue> = {};
  for (const [k, v] of Object.entries(cmd.opts<Record<string, RawValue>>()))
    if (cmd.getOptionValueSource(k) !== 'default') flags[k] = v;
  return flags;
}
