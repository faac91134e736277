/** What commander collects for a flag: its text, true/false for a switch, every value of a repeatable one. */
export type RawValue = string | boolean | string[];

/**
 * One flag, written once: commander's spelling (which also names the flags object's key), its
 * help, the default --help shows, and how its text becomes the value a command's run() gets.
 */
export interface OptionDef<T = unknown> {
  readonly flags: string;
  readonly help: string;
  /**
   * Shown by --help only, as commander shows a default (a string in quotes, a number as it is). A
   * flag the user did not type stays undefined in the flags object, so the library applies its own
   * DEFAULT_* (the suite, for one, has other parameters than -t).
   */
  readonly shownDefault?: string | number;
  /** What --help says in place of shownDefault, as it is (not quoted), when the value alone does not say it. */
  readonly shownDefaultText?: string;
  /** The heading --help lists the option under, after the command's own options (commander's helpGroup). */
  readonly group?: string;
  readonly choices?: readonly string[];
  readonly repeatable?: boolean;
  readonly parse: (raw: RawValue) => T;
}

export type OptionDefs = Readonly<Record<string, OptionDef>>;

/** The flags object a command's run() gets: each flag typed by its definition, undefined when not given. */
export type FlagsOf<O extends OptionDefs> = { [K in keyof O]?: O[K] extends OptionDef<infer T> ? T : never };

export interface Shown {
  /** The default --help shows; see OptionDef.shownDefault. */
  default?: string | number;
}

/** The shownDefault of an option whose default --help shows. */
export const shown = (o: Shown) => (o.default === undefined ? {} : { shownDefault: String(o.default) });

/** A switch: `--csv`, or `--no-store` (false when given). */
export function flag(flags: string, help: string): OptionDef<boolean> {
  return { flags, help, parse: (raw) => raw === true };
}

/** A value taken as typed. */
export function text(flags: string, help: string, o: Shown = {}): OptionDef<string> {
  return { flags, help, ...shown(o), parse: String };
}

/** A value parsed by `parse`, which throws an error naming the flag for bad input. */
export function custom<T>(flags: string, help: string, parse: (v: string) => T, o: Shown = {}): OptionDef<T> {
  return { flags, help, ...shown(o), parse: (raw) => parse(String(raw)) };
}

/** A flag that may be given several times; the values in the order given. */
export function repeatable(flags: string, help: string): OptionDef<string[]> {
  return { flags, help, repeatable: true, parse: (raw) => (Array.isArray(raw) ? raw : [String(raw)]) };
}

/** One of `choices` (commander refuses anything else, listing them). */
export function choice<const C extends string>(
  flags: string,
  help: string,
  choices: readonly C[],
  o: Shown = {},
): OptionDef<C> {
  return { flags, help, choices, ...shown(o), parse: (raw) => raw as C };
}

/** The options --help lists under `heading`, after the command's own. */
export function grouped<const O extends OptionDefs>(heading: string, defs: O): O {
  return Object.fromEntries(Object.entries(defs).map(([k, d]) => [k, { ...d, group: heading }])) as O;
}

/** The typed flags, in the order the command defines them (so the first bad one is reported). */
export function parseFlags<O extends OptionDefs>(defs: O, given: Record<string, RawValue>): FlagsOf<O> {
  const flags: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(defs)) {
    const raw = given[key];
    if (raw !== undefined) flags[key] = def.parse(raw);
  }
  return flags as FlagsOf<O>;
}
