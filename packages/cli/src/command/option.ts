import { CliError, EXIT_USAGE } from '../errors.js';

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
   * Shown by --help only. A flag the user did not type stays undefined in the flags object, so
   * the library applies its own DEFAULT_* (the suite, for one, has other parameters than -t).
   */
  readonly shownDefault?: string;
  readonly choices?: readonly string[];
  readonly repeatable?: boolean;
  readonly parse: (raw: RawValue) => T;
}

export type OptionDefs = Readonly<Record<string, OptionDef>>;

/** The flags object a command's run() gets: each flag typed by its definition, undefined when not given. */
export type FlagsOf<O extends OptionDefs> = { [K in keyof O]?: O[K] extends OptionDef<infer T> ? T : never };

const usage = (msg: string) => new CliError(msg, 'ERR_USAGE', EXIT_USAGE);

/** A whole number from `min` to `max`; `_` may separate digits (-n 1_000_000). `what` names it in the error. */
export function wholeNumber(what: string, v: string, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(v.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw usage(`invalid ${what}: "${v}" (expected a whole number ${range})`);
  }
  return n;
}

/** A number >= 0 (seconds, a rate, an exponent). */
export function positiveNumber(what: string, v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw usage(`invalid ${what}: "${v}" (expected a number >= 0)`);
  return n;
}

interface Shown {
  /** The default --help shows; see OptionDef.shownDefault. */
  default?: string | number;
}

const shown = (o: Shown) => (o.default === undefined ? {} : { shownDefault: String(o.default) });

/** A switch: `--csv`, or `--no-store` (false when given). */
export function flag(flags: string, help: string): OptionDef<boolean> {
  return { flags, help, parse: (raw) => raw === true };
}

/** A value taken as typed. */
export function text(flags: string, help: string, o: Shown = {}): OptionDef<string> {
  return { flags, help, ...shown(o), parse: String };
}

/** A value parsed by `parse`, which throws a CliError naming the flag for bad input. */
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

/** A whole number; `what` names it in the error ("clients (-c)"). */
export function int(
  flags: string,
  help: string,
  what: string,
  o: Shown & { min?: number; max?: number } = {},
): OptionDef<number> {
  return { flags, help, ...shown(o), parse: (raw) => wholeNumber(what, String(raw), o.min, o.max) };
}

/** A number >= 0; `what` names it in the error ("duration (--duration)"). */
export function num(flags: string, help: string, what: string, o: Shown = {}): OptionDef<number> {
  return { flags, help, ...shown(o), parse: (raw) => positiveNumber(what, String(raw)) };
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
