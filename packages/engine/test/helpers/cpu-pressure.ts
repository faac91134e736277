import { readFileSync } from 'node:fs';

/**
 * Above this share of an interval in which some task waited for a CPU, the host was too busy for a
 * test to hold a client to a timing figure (an asked rate, a duration). With two CPU hogs on two cores
 * it read 0.93 to 1.00 over these tests' cells; a test's own client and server at a few thousand
 * requests a second leave most of two cores idle.
 */
export const BUSY_CPU_PRESSURE = 0.2;

/** Microseconds in which some task on this host waited for a CPU (Linux PSI), or null without PSI. */
function someStallUs(): number | null {
  try {
    const m = /^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'latin1'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Runs `fn` and says how busy the host's CPUs were meanwhile: the share of the interval in which some
 * task waited for a CPU (null where the kernel does not report it, and then the host is taken as quiet).
 * A timing assertion is held on a quiet host; on a busy one, the test asserts what must hold however
 * busy it is (exact counts, figures that agree with each other), and a timing claim that then fails
 * is recorded as skipped (holdUnlessBusy, packages/testing/src/skipped-claim.ts).
 */
export interface HostLoad {
  /** Over BUSY_CPU_PRESSURE: too busy to hold a timing claim. */
  busy: boolean;
  pressure: number | null;
  /** The figure, as a skipped claim names it: "CPU pressure 0.85". */
  figure: string;
}

export async function withCpuPressure<T>(fn: () => Promise<T>): Promise<{ value: T; host: HostLoad }> {
  const from = someStallUs();
  const started = performance.now();
  const value = await fn();
  const to = someStallUs();
  const pressure =
    from === null || to === null ? null : (to - from) / 1000 / Math.max(1, performance.now() - started);
  const busy = pressure !== null && pressure > BUSY_CPU_PRESSURE;
  return { value, host: { busy, pressure, figure: `CPU pressure ${pressure?.toFixed(2) ?? 'unknown'}` } };
}
