import { custom, type OptionDef, type Shown } from '@redis-benchdb/command';
import { CliError, EXIT_USAGE } from '../errors.js';

// The CLI's numbers: each refused with a CliError (exit code 2) that names the flag and the range.

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

/** A whole number; `what` names it in the error ("clients (-c)"). */
export function int(
  flags: string,
  help: string,
  what: string,
  o: Shown & { min?: number; max?: number } = {},
): OptionDef<number> {
  return custom(flags, help, (v) => wholeNumber(what, v, o.min, o.max), o);
}

/** A number >= 0; `what` names it in the error ("duration (--duration)"). */
export function num(flags: string, help: string, what: string, o: Shown = {}): OptionDef<number> {
  return custom(flags, help, (v) => positiveNumber(what, v), o);
}
