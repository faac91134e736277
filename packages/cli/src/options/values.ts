// The values of run's flags that are more than a number or a choice: sizes, ratios, objectives.
import type { SloObjective } from '@redis-benchdb/result';
import { CliError, EXIT_USAGE } from '../errors.js';

const usage = (msg: string) => new CliError(msg, 'ERR_USAGE', EXIT_USAGE);

/** `256`, `1k`, `64KiB`, or a range `16-1024`. */
export function parseSize(v: string): number | [number, number] {
  const one = (s: string): number => {
    const m = /^(\d+)\s*(b|k|kb|kib|m|mb|mib)?$/i.exec(s.trim());
    if (!m)
      throw usage(`invalid value size: "${v}" (expected bytes like 256, 4k, 64KiB, or a range like 16-1024)`);
    const unit = (m[2] ?? 'b').toLowerCase();
    return Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1);
  };
  const dash = v.indexOf('-');
  return dash > 0 ? [one(v.slice(0, dash)), one(v.slice(dash + 1))] : one(v);
}

/** A memory size: `1GiB`, `512MiB`, `2g`, `1073741824`. */
export function parseBytes(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?$/i.exec(v.trim());
  if (!m) throw usage(`invalid memory size: "${v}" (expected a size like 1GiB, 512MiB or 2g)`);
  const unit = (m[2] ?? 'b').toLowerCase()[0]!;
  const scale = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[unit] ?? 1;
  return Math.round(Number(m[1]) * scale);
}

export function parseRatio(v: string): [number, number] {
  const m = /^(\d+):(\d+)$/.exec(v);
  if (!m) throw usage(`invalid --ratio: "${v}" (expected SET:GET like 1:10)`);
  return [Number(m[1]), Number(m[2])];
}

/**
 * `p99<=1ms,p99.9<=5ms`; a refusal names the syntax (exit 2). Parsed in run(), not as the option is
 * read: the parser lives in the engine, which --help must not load (engine/options is its light part).
 */
export async function parseSlo(v: string): Promise<SloObjective[]> {
  const { parseObjectives, SloSyntaxError } = await import('@redis-benchdb/engine');
  try {
    return parseObjectives(v);
  } catch (err) {
    if (err instanceof SloSyntaxError) throw usage(err.message);
    throw err;
  }
}
