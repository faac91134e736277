import { readFileSync } from 'node:fs';

/**
 * Above this share of an interval in which some task waited for a CPU, the host is busy: a figure of
 * CPU time per request then also takes in work interleaved with it, and a test holds it to a looser
 * bound. With two CPU hogs on two cores it reads about 1.0.
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

export interface HostLoad {
  /** Over BUSY_CPU_PRESSURE. */
  busy: boolean;
  pressure: number | null;
  /** The figure, as a skipped claim names it: "CPU pressure 0.85". */
  figure: string;
}

/** Start now; `stop()` gives the share of the interval in which some task waited for a CPU (null without PSI). */
export function startCpuPressure(): { stop(): HostLoad } {
  const from = someStallUs();
  const started = performance.now();
  return {
    stop() {
      const to = someStallUs();
      const pressure =
        from === null || to === null ? null : (to - from) / 1000 / Math.max(1, performance.now() - started);
      const busy = pressure !== null && pressure > BUSY_CPU_PRESSURE;
      return { pressure, busy, figure: `CPU pressure ${pressure?.toFixed(2) ?? 'unknown'}` };
    },
  };
}
