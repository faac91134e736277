/**
 * The systeminformation calls the machine probe uses, each bounded by a shared deadline: some of
 * them spawn lscpu, dmidecode or dmesg, and a slow or stuck one must not hang a benchmark run.
 * A call that misses the deadline or fails becomes a reason, never an exception.
 */

import si from 'systeminformation';
import { type Fact, known, missing } from './fact.js';

export interface SiFacts {
  cpu: Fact<si.Systeminformation.CpuData>;
  mem: Fact<si.Systeminformation.MemData>;
  system: Fact<si.Systeminformation.SystemData>;
}

export async function gatherSi(timeoutMs: number): Promise<SiFacts> {
  const deadline = Date.now() + timeoutMs;
  // Not si.osInfo(): it runs `hostname -f` with execSync, which can query DNS (a packet off this
  // machine) and blocks the event loop, so no deadline could stop it. os-info.ts reads files.
  const [cpu, mem, system] = await Promise.all([
    bounded('si.cpu()', () => si.cpu(), deadline, timeoutMs),
    bounded('si.mem()', () => si.mem(), deadline, timeoutMs),
    bounded('si.system()', () => si.system(), deadline, timeoutMs),
  ]);
  return { cpu, mem, system };
}

/** SiFacts where every call is missing for the same reason (si not consulted). */
export function siUnavailable(reason: string): SiFacts {
  return { cpu: missing(reason), mem: missing(reason), system: missing(reason) };
}

/** One call's answer, or a reason once the deadline passes (a call that never settles included). */
export async function bounded<T>(
  name: string,
  call: () => Promise<T>,
  deadline: number,
  timeoutMs: number,
): Promise<Fact<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Fact<T>>((resolve) => {
    timer = setTimeout(
      () => resolve(missing(`systeminformation ${name} did not answer within ${timeoutMs} ms`)),
      Math.max(0, deadline - Date.now()),
    );
    // The abandoned call may still be running; it must not keep the process alive.
    timer.unref();
  });
  const run = (async (): Promise<Fact<T>> => {
    try {
      return known(await call());
    } catch (err) {
      return missing(`systeminformation ${name} failed: ${(err as Error).message}`);
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A positive number from systeminformation, or a reason (it reports 0 or '' for "don't know"). */
export function siNumber<T>(f: Fact<T>, pick: (v: T) => number | undefined, what: string): Fact<number> {
  if (f.reason !== null) return missing(f.reason);
  const n = pick(f.value);
  return typeof n === 'number' && Number.isFinite(n) && n > 0
    ? known(n)
    : missing(`systeminformation returned no value for ${what}`);
}

export function siString<T>(f: Fact<T>, pick: (v: T) => string | undefined, what: string): Fact<string> {
  if (f.reason !== null) return missing(f.reason);
  const s = pick(f.value)?.trim();
  return s ? known(s) : missing(`systeminformation returned no value for ${what}`);
}
