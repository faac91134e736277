/**
 * Other processes' CPU time, counted one process at a time from /proc/<pid>/stat. This is the direct
 * count of other work: a process's utime + stime is its precise run time (the scheduler's
 * sum_exec_runtime), whichever way the kernel splits host time into user, system and softirq in
 * /proc/stat. Issue 34: with tick accounting, a task's stime also holds the softirq ticks that landed
 * while it ran, which /proc/stat files as softirq; on loopback that is a large part of the client's and
 * server's time, so "host busy less client and server" came out near 0 with a busy loop on the server's
 * CPU. Counted per process, that busy loop is its own run time.
 */

import { readdirSync, readFileSync } from 'node:fs';

/** One process's CPU time in clock ticks. */
export interface ProcTimes {
  /**
   * utime + stime, all its threads. Not cutime + cstime: a child reaped during the interval adds its
   * whole life's time there, a minute of compiler in a one-second cell.
   */
  ticks: number;
  /** Field 22, to tell a pid reused during the interval from the same process. */
  startTime: number;
}

/** /proc/<pid>/stat text → its CPU times, or null when the fields are not there. */
export function parseProcTimes(text: string): ProcTimes | null {
  // The command name is in parentheses and may itself contain spaces or ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): utime and stime are fields 14 and 15, starttime field 22.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  const startTime = Number(rest[19]);
  if (![utime, stime, startTime].every(Number.isFinite)) return null;
  return { ticks: utime + stime, startTime };
}

/** Every process on this host (as far as this pid namespace sees) but the excluded ones. */
export function readProcTimes(root: string, exclude: ReadonlySet<number>): Map<number, ProcTimes> {
  const out = new Map<number, ProcTimes>();
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    return out;
  }
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || exclude.has(pid)) continue;
    let text: string;
    try {
      text = readFileSync(`${root}/${name}/stat`, 'latin1');
    } catch {
      continue; // it exited between the listing and the read
    }
    const t = parseProcTimes(text);
    if (t) out.set(pid, t);
  }
  return out;
}

/**
 * The CPU ticks other processes used between the two scans. A process born during the interval counts
 * whole. Blind spot: a process that exits before the second scan (a compiler in a build) is not seen;
 * the host-wide residual (interference.ts otherWork) counts it where the host's accounting allows.
 */
export function otherProcTicks(start: Map<number, ProcTimes>, end: Map<number, ProcTimes>): number {
  let n = 0;
  for (const [pid, b] of end) {
    const a = start.get(pid);
    n += a && a.startTime === b.startTime ? Math.max(0, b.ticks - a.ticks) : b.ticks;
  }
  return n;
}
