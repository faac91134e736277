/**
 * Pins a process (all its threads) to a CPU list with `taskset`, as the Redis benchmark docs advise
 * for client and server on one host: without it the scheduler may put both on one core and a run
 * swings by tens of percent. Pinning is asked for, not assumed: the outcome is read back from
 * /proc, and a failure is returned as a reason to report, never thrown.
 */

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { findServerBinary } from './launch/binary.js';

export interface Pinning {
  /** The CPU list asked for, e.g. "1" or "0-3,8". */
  requested: string;
  /** The CPUs the process may run on afterwards (its Cpus_allowed_list), or null when not pinned. */
  applied: string | null;
  /** Why it was not pinned: no taskset, taskset refused, not Linux. Null when pinned. */
  error: string | null;
}

export class CpuListError extends Error {
  readonly code = 'ERR_OPTIONS';
  override readonly name = 'CpuListError';
}

const CPU_LIST = /^\d+(-\d+)?(,\d+(-\d+)?)*$/;

/**
 * The CPUs of a list like "0-3,8", checked against this machine: a CPU it does not have is a typo
 * to fix before anything starts, not a pinning failure to report afterwards.
 */
export function parseCpuList(list: string, what = 'CPU list', cpuCount = os.cpus().length): number[] {
  const text = list.trim();
  if (!CPU_LIST.test(text))
    throw new CpuListError(`invalid ${what}: "${list}" (expected CPUs like 1, 0-3 or 0,2-3)`);
  const cpus = new Set<number>();
  for (const part of text.split(',')) {
    const [a, b = a] = part.split('-').map(Number) as [number, number?];
    if (b < a) throw new CpuListError(`invalid ${what}: "${list}" (${part} is a range backwards)`);
    for (let c = a; c <= b; c++) cpus.add(c);
  }
  const missing = [...cpus].filter((c) => c >= cpuCount);
  if (missing.length > 0)
    throw new CpuListError(
      `invalid ${what}: "${list}": this machine has CPUs 0-${cpuCount - 1}, not ${missing.join(',')}`,
    );
  return [...cpus].sort((x, y) => x - y);
}

/** The CPUs a process may run on now, from /proc (Linux), or null. */
export function allowedCpus(pid: number): string | null {
  try {
    const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] ?? null;
  } catch {
    return null;
  }
}

/** `taskset -a -p -c LIST PID`: every thread of the process, and the threads it starts later. */
export async function pinProcess(pid: number, cpus: string): Promise<Pinning> {
  const notPinned = (error: string): Pinning => ({ requested: cpus, applied: null, error });
  if (process.platform !== 'linux')
    return notPinned(`CPU pinning uses taskset, which needs Linux (this is ${process.platform})`);
  const taskset = findServerBinary('taskset');
  if (!taskset) return notPinned('taskset is not on PATH (Debian/Ubuntu: sudo apt-get install util-linux)');
  const failure = await new Promise<string | null>((resolve) => {
    execFile(taskset, ['-a', '-p', '-c', cpus, String(pid)], { timeout: 5_000 }, (err, _out, stderr) =>
      resolve(err ? `taskset failed: ${(stderr || err.message).trim().split('\n')[0]}` : null),
    );
  });
  if (failure) return notPinned(failure);
  const applied = allowedCpus(pid);
  return applied
    ? { requested: cpus, applied, error: null }
    : notPinned(`could not read back the CPUs of pid ${pid}`);
}
