/**
 * Interference over one cell's measured interval: what else ran on this host while the cell ran.
 * A run that shared its CPUs with other work looks like a slower server; these figures say so.
 *
 * Read from /proc at start and stop, plus a light periodic sample of the run queue (one timer on
 * the main thread, never on the load's hot path, which runs in worker threads). Linux only.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { BUSY_HOST_OTHER_CPU_FRACTION, type InterferenceFigures } from '@redis-benchdb/result';
import { otherProcTicks, type ProcTimes, readProcTimes } from './interference-procs.js';

export type { InterferenceFigures };

/** The aggregate `cpu` line of /proc/stat in clock ticks, and the run queue at that moment. */
export interface ProcStat {
  cpuCount: number;
  /** Every column up to and including steal: the CPUs' whole time. */
  totalTicks: number;
  /** user, nice, system (guest time is already inside user). */
  busyTicks: number;
  /**
   * irq + softirq. Kept apart from busyTicks: with tick accounting a task's own time holds the ticks
   * that landed in interrupts while it ran, with IRQ_TIME_ACCOUNTING it does not (issue 34).
   */
  irqTicks: number;
  stealTicks: number;
  /** Runnable tasks now (procs_running), including the one reading this. */
  procsRunning: number | null;
}

/** /proc/stat text → the figures the sampler needs; null when it has no aggregate cpu line. */
export function parseProcStat(text: string): ProcStat | null {
  let agg: number[] | null = null;
  let cpuCount = 0;
  let procsRunning: number | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('cpu ')) agg = line.trim().split(/\s+/).slice(1).map(Number);
    else if (/^cpu\d+ /.test(line)) cpuCount++;
    else if (line.startsWith('procs_running ')) procsRunning = Number(line.slice(14).trim());
  }
  if (!agg || agg.length < 4 || agg.some((x) => !Number.isFinite(x))) return null;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = agg;
  return {
    cpuCount: Math.max(1, cpuCount),
    totalTicks: user + nice + system + idle + iowait + irq + softirq + steal,
    busyTicks: user + nice + system,
    irqTicks: irq + softirq,
    stealTicks: steal,
    procsRunning: Number.isFinite(procsRunning) ? procsRunning : null,
  };
}

/** /proc/<pid>/stat text → utime + stime in clock ticks (all threads of the process). */
export function parsePidStatTicks(text: string): number | null {
  // The command name is in parentheses and may itself contain spaces or ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? utime + stime : null;
}

/** /proc/<pid>/task/<tid>/status text → nonvoluntary_ctxt_switches, or null. */
export function parseInvoluntarySwitches(text: string): number | null {
  const m = /^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(text);
  return m ? Number(m[1]) : null;
}

/** Everything read at one end of the interval. */
export interface Snapshot {
  stat: ProcStat;
  clientTicks: number | null;
  serverTicks: number | null;
  /** Per thread id: a thread that exists at only one end is left out of the difference. */
  clientSwitches: Map<string, number>;
  serverSwitches: Map<string, number> | null;
  /** Every other process's CPU times (not the client, not the local server); null: not read. */
  others: Map<number, ProcTimes> | null;
}

/**
 * Ticks by which the processes this host shows may exceed its /proc/stat busy time (irq and softirq
 * included) before its accounting counts as irreconcilable: tick sampling against precise run times.
 * On the Intel Xeon 2-vCPU KVM kind (kernel 6.18), quiet 1 s trials of a two-server group had the
 * processes over /proc/stat by 5-7% of the interval in 5 of 320 trials (10-14 of 200 ticks, about two
 * standard deviations of tick sampling) with no steal: at 5% those read as unknown and left the cell
 * out. A container's own /proc/stat is off by far more (the tests' 35 points).
 */
const RECONCILE_SLACK = { fraction: 0.1, minTicks: 4 };

/** Pure: the figures from the two ends of the interval and the run-queue samples taken during it. */
export function interferenceFigures(
  start: Snapshot,
  end: Snapshot,
  runQueueSamples: number[],
): InterferenceFigures {
  const total = end.stat.totalTicks - start.stat.totalTicks;
  const frac = (x: number) => (total > 0 ? round(Math.min(1, Math.max(0, x) / total), 4) : null);
  const client = delta(start.clientTicks, end.clientTicks);
  const server = start.serverSwitches ? delta(start.serverTicks, end.serverTicks) : 0;
  const busy = end.stat.busyTicks - start.stat.busyTicks;
  const irq = end.stat.irqTicks - start.stat.irqTicks;
  const direct = start.others && end.others ? otherProcTicks(start.others, end.others) : null;
  const other = otherWork(total, busy, irq, client, server, direct);
  // The runnable count includes the reader itself (this thread, sampling): it is not other work.
  const queue = runQueueSamples.map((n) => Math.max(0, n - 1));
  return {
    cpuCount: end.stat.cpuCount,
    stealFraction: frac(end.stat.stealTicks - start.stat.stealTicks),
    otherCpuFraction: other.ticks === null ? null : frac(other.ticks),
    runQueueMean: queue.length ? round(queue.reduce((a, b) => a + b, 0) / queue.length, 2) : null,
    runQueueMax: queue.length ? Math.max(...queue) : null,
    clientInvoluntaryCtxSwitches: switches(start.clientSwitches, end.clientSwitches),
    serverInvoluntaryCtxSwitches:
      start.serverSwitches && end.serverSwitches ? switches(start.serverSwitches, end.serverSwitches) : null,
    sampleCount: queue.length,
    note: other.note,
  };
}

/**
 * Other work in ticks, from two counts that err in opposite directions:
 * - the residual, host busy (user, nice, system) less the client's and server's own time. It sees
 *   processes too short-lived for a scan, but reads low where the kernel charges a task for the softirq
 *   ticks it carried (tick accounting: the benchmark's own loopback packets) and files them as softirq;
 * - the direct count, other processes' own time (interference-procs.ts), whichever accounting.
 * Neither counts more than there was, so the larger holds. Where the processes this host shows used
 * more than its /proc/stat says was busy even with irq and softirq, the host's accounting cannot be
 * reconciled (a container's own /proc/stat, say): the figure is the direct count when that alone
 * crosses the threshold (a lower bound), else unknown, and the note says why.
 */
export function otherWork(
  total: number,
  busy: number,
  irq: number,
  client: number | null,
  server: number | null,
  direct: number | null,
): { ticks: number | null; note: string | null } {
  if (client === null || server === null) return { ticks: null, note: null };
  const residual = busy - client - server;
  if (direct === null) return { ticks: residual, note: null };
  const seen = client + server + direct;
  const slack = Math.max(RECONCILE_SLACK.minTicks, RECONCILE_SLACK.fraction * total);
  if (total > 0 && seen > busy + irq + slack) {
    const pct = (x: number) => `${Math.round((x / total) * 100)}%`;
    const over = direct / total > BUSY_HOST_OTHER_CPU_FRACTION;
    return {
      ticks: over ? direct : null,
      note: `this host's /proc/stat counts ${pct(busy + irq)} of the CPUs' time as busy, less than its processes used (${pct(seen)}; other processes ${pct(direct)}): its CPU accounting cannot be reconciled, so other work is ${over ? 'at least the other processes’ own time' : 'unknown and the cell is not taken as quiet'}`,
    };
  }
  return { ticks: Math.max(residual, direct), note: null };
}

export interface InterferenceSamplerOptions {
  /** The pid of a server on this host (launched, or INFO process_id checked by localServerPid). */
  serverPid?: number | null;
  /** How often the run queue is read. @default 200 */
  intervalMs?: number;
  /** Where /proc is (tests). @default '/proc' */
  procRoot?: string;
}

export interface InterferenceSampler {
  stop(): InterferenceFigures;
}

/** Start measuring now; stop() returns the figures over the interval since. */
export function startInterferenceSampler(opts: InterferenceSamplerOptions = {}): InterferenceSampler {
  const root = opts.procRoot ?? '/proc';
  const serverPid = opts.serverPid ?? null;
  const start = process.platform === 'linux' ? snapshot(root, serverPid) : null;
  if (!start) {
    const note =
      process.platform === 'linux'
        ? `${root}/stat could not be read`
        : `interference is measured on Linux only (this is ${process.platform})`;
    return { stop: () => nullFigures(note) };
  }
  const samples: number[] = [];
  const sample = () => {
    const q = readProcStat(root)?.procsRunning;
    if (q != null) samples.push(q);
  };
  sample();
  const timer = setInterval(sample, opts.intervalMs ?? 200);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      const end = snapshot(root, serverPid);
      if (!end) return nullFigures(`${root}/stat could not be read at the end of the cell`);
      const figures = interferenceFigures(start, end, samples);
      const server =
        serverPid === null
          ? "the server is not a local process: only the client's CPU is left out"
          : !start.serverSwitches
            ? `no process ${serverPid} on this host: the server's CPU is counted as other work`
            : null;
      const note = [server, figures.note].filter((n) => n !== null).join('; ');
      return { ...figures, note: note || null };
    },
  };
}

/**
 * A pid from the server's INFO process_id, if it is a Redis-like server process on this host; a
 * remote server's pid would name some unrelated local process.
 */
export function localServerPid(pid: number | null, procRoot = '/proc'): number | null {
  if (pid === null || !Number.isInteger(pid) || pid <= 0) return null;
  const comm = readText(`${procRoot}/${pid}/comm`);
  return comm && /redis|valkey|keydb|dragonfly/i.test(comm) ? pid : null;
}

export function nullFigures(note: string): InterferenceFigures {
  return {
    cpuCount: null,
    stealFraction: null,
    otherCpuFraction: null,
    runQueueMean: null,
    runQueueMax: null,
    clientInvoluntaryCtxSwitches: null,
    serverInvoluntaryCtxSwitches: null,
    sampleCount: 0,
    note,
  };
}

function snapshot(root: string, serverPid: number | null): Snapshot | null {
  // The scan of every process goes first: it takes milliseconds (a tenth of a second on a loaded
  // 2-CPU host), and run between the /proc/stat read and the client's own, the client's CPU spent
  // scanning would count as other work.
  const self = Number(readText(`${root}/self/stat`)?.split(' ')[0]);
  const own = new Set([Number.isInteger(self) && self > 0 ? self : process.pid]);
  if (serverPid !== null) own.add(serverPid);
  const others = readProcTimes(root, own);
  const stat = readProcStat(root);
  if (!stat) return null;
  const clientStat = readText(`${root}/self/stat`);
  const serverStat = serverPid === null ? null : readText(`${root}/${serverPid}/stat`);
  return {
    others,
    stat,
    clientTicks: parsePidStatTicks(clientStat ?? ''),
    serverTicks: serverStat ? parsePidStatTicks(serverStat) : null,
    clientSwitches: taskSwitches(`${root}/self/task`),
    serverSwitches: serverStat ? taskSwitches(`${root}/${serverPid}/task`) : null,
  };
}

function readProcStat(root: string): ProcStat | null {
  const t = readText(`${root}/stat`);
  return t ? parseProcStat(t) : null;
}

function taskSwitches(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[] = [];
  try {
    tids = readdirSync(dir);
  } catch {
    return out;
  }
  for (const tid of tids) {
    const n = parseInvoluntarySwitches(readText(`${dir}/${tid}/status`) ?? '');
    if (n !== null) out.set(tid, n);
  }
  return out;
}

function switches(a: Map<string, number>, b: Map<string, number>): number {
  let n = 0;
  for (const [tid, v] of b) {
    const before = a.get(tid);
    if (before !== undefined) n += Math.max(0, v - before);
  }
  return n;
}

function delta(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : b - a;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
