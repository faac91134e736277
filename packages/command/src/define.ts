import { Command, Option } from 'commander';
import { type FlagsOf, type OptionDef, type OptionDefs, parseFlags, type RawValue } from './option.js';

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
  /** The line the program's list of commands shows, when not the description's. */
  readonly summary?: string;
  /** The usage line after the command's name, when not commander's (`[options] <arg>`). */
  readonly usage?: string;
  /** An argument with an empty help is left out of --help's list of arguments (not of its usage). */
  readonly argument?: { readonly usage: A; readonly help: string };
  readonly options: O;
  readonly helpAfter?: string;
  /**
   * Called inside commander's parse, after the flags are parsed: what it throws before its first
   * await reaches the caller of parse() itself, as the flags' own refusals do.
   */
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
  /** Without one, the program has no version flag. */
  readonly version?: string;
  /**
   * What a command line that names none of the commands runs: its options and argument are the
   * program's own (a command's flag of the same name after the command's name is the command's).
   */
  readonly main?: AnyCommand;
  /** The version flag's spelling, e.g. `-v, --version` (commander's own is `-V, --version`). */
  readonly versionFlags?: string;
  /** The help flag's spelling and help, on the program and on each command (commander's own otherwise). */
  readonly help?: { readonly flags: string; readonly description: string };
  /** What follows a usage error's message, e.g. `(run with --help for usage)`. */
  readonly errorHint?: string;
  /** Words after a command's arguments are ignored rather than refused (commander's allowExcessArguments). */
  readonly allowExcessArguments?: boolean;
  /**
   * Each value is also parsed as commander reads it, so the first bad value on the command line is
   * refused before an unknown flag after it, and a flag given twice has both of its values checked.
   * Without it, the values are parsed after commander's own checks, in the order the command defines them.
   */
  readonly parseAsRead?: boolean;
}

/** Calls a command's run(); tests pass their own to see the flags a command line gives. */
export type Runner = (def: AnyCommand, flags: Record<string, unknown>, arg: unknown) => Promise<number>;

const runIt: Runner = (def, flags, arg) => def.run(flags, arg as never);

/** The commander program for these commands; each action parses its flags, then runs. */
export function buildProgram(meta: ProgramMeta, commands: readonly AnyCommand[], runner = runIt): Command {
  const program = new Command(meta.name)
    .description(meta.description)
    .configureOutput({ outputError: (s, write) => write(s) })
    .exitOverride();
  if (meta.version !== undefined) program.version(meta.version, meta.versionFlags);
  if (meta.help) program.helpOption(meta.help.flags, meta.help.description);
  if (meta.errorHint !== undefined) program.showHelpAfterError(meta.errorHint);
  if (meta.allowExcessArguments) program.allowExcessArguments();
  if (meta.main) {
    addDefinition(program, meta.main, meta, runner);
    program.enablePositionalOptions();
  }
  for (const def of commands) {
    const cmd = program.command(def.name).description(def.description);
    if (meta.help) cmd.helpOption(meta.help.flags, meta.help.description);
    addDefinition(cmd, def, meta, runner);
  }
  return program;
}

/** A definition's help, argument and options on `cmd`, and the action that parses them, then runs. */
function addDefinition(cmd: Command, def: AnyCommand, meta: ProgramMeta, runner: Runner): void {
  if (def.summary !== undefined) cmd.summary(def.summary);
  if (def.usage !== undefined) cmd.usage(def.usage);
  if (def.argument) cmd.argument(def.argument.usage, def.argument.help);
  for (const [key, o] of Object.entries(def.options as OptionDefs)) {
    const option = new Option(o.flags, o.help);
    // The key is what run() reads: it must be the name commander gives the flag.
    if (option.attributeName() !== key)
      throw new Error(`${def.name}: option "${key}" must be named ${option.attributeName()} (${o.flags})`);
    if (o.choices) option.choices(o.choices);
    const shown = o.shownDefault ?? o.shownDefaultText;
    if (shown !== undefined) option.default(shown, o.shownDefaultText);
    if (o.group !== undefined) option.helpGroup(o.group);
    if (o.repeatable) option.argParser(collect);
    else if (meta.parseAsRead) option.argParser((v: string) => checked(o, v));
    cmd.addOption(option);
  }
  if (def.helpAfter) cmd.addHelpText('after', def.helpAfter);
  // Not async: a refusal thrown before run()'s first await reaches parse()'s caller as thrown.
  cmd.action((...params: unknown[]) => {
    const self = params.at(-1) as Command;
    const flags = parseFlags(def.options as OptionDefs, typedFlags(self));
    return runner(def, flags, def.argument ? params[0] : undefined).then((code) => {
      process.exitCode = code;
    });
  });
}

/** The text of a value `def` takes, once its parser has taken it (the flags are parsed again, in order, after). */
function checked(def: OptionDef, value: string): string {
  def.parse(value);
  return value;
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
