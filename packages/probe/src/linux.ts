/**
 * Linux facts that systeminformation does not cover (or covers inconsistently), read straight
 * from /proc and /sys under a root directory (see sysfs.ts). Each reader returns Facts, so a
 * missing file becomes a null with the file named in the reason.
 */

import { type Fact, known, missing } from './fact.js';
import {
  bracketed,
  formatCpuList,
  kbToBytes,
  listDir,
  parseColonLines,
  parseCpuList,
  readSys,
  readTrimmed,
} from './sysfs.js';
import type { ThpMode } from './types.js';

const CPU_DIR = '/sys/devices/system/cpu';
const NODE_DIR = '/sys/devices/system/node';
const THP_DIR = '/sys/kernel/mm/transparent_hugepage';

// ---- Transparent huge pages ----------------------------------------------------------------------

/** THP makes fork() (BGSAVE, AOF rewrite) copy 2 MB pages: the latency docs say to disable it. */
export function readThp(root: string): { enabled: Fact<ThpMode>; defrag: Fact<string> } {
  const one = (file: string): Fact<string> => {
    const r = readSys(root, `${THP_DIR}/${file}`);
    if (!r.ok) return missing(r.reason);
    const v = bracketed(r.text);
    return v ? known(v) : missing(`file ${THP_DIR}/${file} has no [bracketed] value: "${r.text.trim()}"`);
  };
  const enabled = one('enabled');
  let thp: Fact<ThpMode> = enabled as Fact<ThpMode>;
  if (enabled.value !== null && !['always', 'madvise', 'never'].includes(enabled.value)) {
    thp = missing(`unrecognised THP mode "${enabled.value}" in ${THP_DIR}/enabled`);
  }
  return { enabled: thp, defrag: one('defrag') };
}

// ---- CPUs ----------------------------------------------------------------------------------------

/** Online CPU numbers, from /sys/devices/system/cpu/online (falls back to the cpuN directories). */
export function readOnlineCpus(root: string): Fact<number[]> {
  const online = readSys(root, `${CPU_DIR}/online`);
  if (online.ok) {
    const cpus = parseCpuList(online.text);
    if (cpus && cpus.length > 0) return known(cpus);
  }
  const dir = listDir(root, CPU_DIR);
  if (!dir.ok) return missing(dir.reason);
  const cpus = dir.names
    .map((n) => /^cpu(\d+)$/.exec(n)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  return cpus.length > 0 ? known(cpus) : missing(`no cpuN entries in ${CPU_DIR}`);
}

export interface Topology {
  sockets: Fact<number>;
  cores: Fact<number>;
  threads: Fact<number>;
}

/**
 * Sockets, physical cores and logical CPUs from the sysfs topology: a core is a distinct
 * `thread_siblings_list` (the CPUs sharing it), a socket a distinct `physical_package_id`.
 */
export function readTopology(root: string): Topology {
  const online = readOnlineCpus(root);
  if (online.value === null) {
    const r = online.reason;
    return { sockets: missing(r), cores: missing(r), threads: missing(r) };
  }
  const packages = new Set<string>();
  const cores = new Set<string>();
  let topoReason: string | null = null;
  for (const cpu of online.value) {
    const base = `${CPU_DIR}/cpu${cpu}/topology`;
    const pkg = readSys(root, `${base}/physical_package_id`);
    const sib = readSys(root, `${base}/thread_siblings_list`);
    if (!pkg.ok || !sib.ok) {
      topoReason = (!pkg.ok ? pkg.reason : null) ?? (!sib.ok ? sib.reason : 'topology unreadable');
      break;
    }
    packages.add(pkg.text.trim());
    cores.add(`${pkg.text.trim()}/${formatCpuList(parseCpuList(sib.text) ?? [])}`);
  }
  const threads = known(online.value.length);
  if (topoReason) return { sockets: missing(topoReason), cores: missing(topoReason), threads };
  return { sockets: known(packages.size), cores: known(cores.size), threads };
}

export interface CpuInfo {
  modelName: string | null;
  vendorId: string | null;
  /**
   * x86 `cpu family`, `model` and `stepping`: what tells apart CPUs that a hypervisor names alike
   * ("AMD EPYC" was Zen 3 one day and Zen 4 the next on this project's VMs). Null where absent
   * (arm64 has `CPU implementer` and `CPU part` instead).
   */
  family: number | null;
  modelNumber: number | null;
  stepping: number | null;
  /** The x86 `flags` of the first CPU; null where the architecture has none (arm64 has `Features`). */
  flags: Set<string> | null;
  /** Why /proc/cpuinfo could not be read, if it could not. */
  reason: string | null;
}

export function readCpuInfo(root: string): CpuInfo {
  const r = readSys(root, '/proc/cpuinfo');
  if (!r.ok)
    return {
      modelName: null,
      vendorId: null,
      family: null,
      modelNumber: null,
      stepping: null,
      flags: null,
      reason: r.reason,
    };
  const first = parseColonLines(r.text.split(/\n\s*\n/)[0] ?? '');
  const flags = first.get('flags');
  return {
    modelName: first.get('model name') || null,
    vendorId: first.get('vendor_id') || null,
    family: cpuinfoInt(first.get('cpu family')),
    modelNumber: cpuinfoInt(first.get('model')),
    stepping: cpuinfoInt(first.get('stepping')),
    flags: flags === undefined ? null : new Set(flags.split(/\s+/).filter(Boolean)),
    reason: null,
  };
}

/** A decimal field of /proc/cpuinfo, or null where absent or not a number. */
function cpuinfoInt(text: string | undefined): number | null {
  return text !== undefined && /^\d+$/.test(text.trim()) ? Number(text.trim()) : null;
}

export interface Caches {
  l1d: Fact<number>;
  l2: Fact<number>;
  l3: Fact<number>;
}

/**
 * Cache sizes of one instance, as CPU 0 sees them (KiB). Read here rather than taken from
 * systeminformation, whose Linux numbers come from lscpu: recent util-linux prints the sum over
 * all instances ("96 KiB (2 instances)"), older versions one instance, so the same CPU would get
 * different values on different distros.
 */
export function readCaches(root: string): Caches {
  const dir = `${CPU_DIR}/cpu0/cache`;
  const list = listDir(root, dir);
  const absent = (what: string): Fact<number> =>
    missing(list.ok ? `no ${what} cache listed in ${dir}` : list.reason);
  const found: { l1d: Fact<number>; l2: Fact<number>; l3: Fact<number> } = {
    l1d: absent('L1 data'),
    l2: absent('L2'),
    l3: absent('L3'),
  };
  if (!list.ok) return found;
  for (const idx of list.names.filter((n) => /^index\d+$/.test(n))) {
    const level = readTrimmed(root, `${dir}/${idx}/level`);
    const type = readTrimmed(root, `${dir}/${idx}/type`);
    const size = parseSizeKiB(readTrimmed(root, `${dir}/${idx}/size`));
    if (size === null) continue;
    if (level === '1' && type === 'Data') found.l1d = known(size);
    else if (level === '2' && type !== 'Instruction') found.l2 = known(size);
    else if (level === '3' && type !== 'Instruction') found.l3 = known(size);
  }
  return found;
}

/** "48K" / "1024K" / "32M" (sysfs cache sizes) → KiB. */
export function parseSizeKiB(s: string | null): number | null {
  const m = /^(\d+)\s*([KMG]?)$/i.exec(s?.trim() ?? '');
  if (!m) return null;
  const unit = (m[2] ?? '').toUpperCase();
  const mult = unit === 'M' ? 1024 : unit === 'G' ? 1024 * 1024 : unit === 'K' ? 1 : 1 / 1024;
  return Number(m[1]) * mult;
}

/**
 * Base and maximum frequency from cpufreq (kHz files). Absent in most VMs, where the host owns
 * frequency scaling. The maximum is taken over all CPUs (hybrid CPUs differ per core type).
 */
export function readCpuFreq(root: string): { baseMhz: Fact<number>; maxMhz: Fact<number> } {
  const baseFile = `${CPU_DIR}/cpu0/cpufreq/base_frequency`;
  const base = readTrimmed(root, baseFile);
  const baseMhz: Fact<number> =
    base && /^\d+$/.test(base) ? known(Math.round(Number(base) / 1000)) : missing(`file ${baseFile} absent`);
  const online = readOnlineCpus(root);
  let max = 0;
  for (const cpu of online.value ?? [0]) {
    const v = readTrimmed(root, `${CPU_DIR}/cpu${cpu}/cpufreq/cpuinfo_max_freq`);
    if (v && /^\d+$/.test(v)) max = Math.max(max, Number(v));
  }
  const maxMhz: Fact<number> =
    max > 0 ? known(Math.round(max / 1000)) : missing(`file ${CPU_DIR}/cpu0/cpufreq/cpuinfo_max_freq absent`);
  return { baseMhz, maxMhz };
}

/**
 * The scaling governor. All online CPUs are read: if they differ, the distinct values are
 * listed ("performance,powersave"), which is not 'performance' and so still warns.
 */
export function readGovernor(root: string): Fact<string> {
  const online = readOnlineCpus(root).value ?? [0];
  const seen = new Set<string>();
  for (const cpu of online) {
    const v = readTrimmed(root, `${CPU_DIR}/cpu${cpu}/cpufreq/scaling_governor`);
    if (v) seen.add(v);
  }
  if (seen.size === 0) {
    const file = `${CPU_DIR}/cpu0/cpufreq/scaling_governor`;
    const r = readSys(root, file);
    return missing(
      r.ok
        ? `file ${file} is empty`
        : `${r.reason} (no cpufreq driver; in a VM the host controls the CPU frequency)`,
    );
  }
  return known([...seen].sort().join(','));
}

/** /sys/devices/system/cpu/vulnerabilities/*: what the kernel does against each CPU flaw. */
export function readMitigations(root: string): Fact<Record<string, string>> {
  const dir = `${CPU_DIR}/vulnerabilities`;
  const list = listDir(root, dir);
  if (!list.ok) return missing(list.reason);
  const out: Record<string, string> = {};
  for (const name of list.names) {
    const v = readTrimmed(root, `${dir}/${name}`);
    if (v !== null) out[name] = v;
  }
  return Object.keys(out).length > 0 ? known(out) : missing(`directory ${dir} is empty`);
}

// ---- NUMA and affinity ---------------------------------------------------------------------------

export interface Numa {
  nodes: Fact<number>;
  /** node number → its CPUs; null when the node directory could not be read. */
  cpusByNode: Map<number, number[]> | null;
}

export function readNuma(root: string): Numa {
  const list = listDir(root, NODE_DIR);
  if (!list.ok) return { nodes: missing(list.reason), cpusByNode: null };
  const cpusByNode = new Map<number, number[]>();
  for (const name of list.names) {
    const m = /^node(\d+)$/.exec(name);
    if (!m) continue;
    const cpus = parseCpuList(readTrimmed(root, `${NODE_DIR}/${name}/cpulist`) ?? '');
    cpusByNode.set(Number(m[1]), cpus ?? []);
  }
  if (cpusByNode.size === 0) return { nodes: missing(`no nodeN entries in ${NODE_DIR}`), cpusByNode: null };
  return { nodes: known(cpusByNode.size), cpusByNode };
}

/** The CPUs a process may run on (taskset/cpuset), from `Cpus_allowed_list` in /proc/PID/status. */
export function readAffinity(root: string, pid: number | 'self'): Fact<string> {
  const file = `/proc/${pid}/status`;
  const r = readSys(root, file);
  if (!r.ok) return missing(pid === 'self' ? r.reason : `${r.reason}: no process ${pid} on this machine`);
  const v = parseColonLines(r.text).get('Cpus_allowed_list');
  if (!v || parseCpuList(v) === null) return missing(`no valid Cpus_allowed_list in ${file}`);
  return known(formatCpuList(parseCpuList(v) ?? []));
}

/** The single NUMA node holding all of `cpuList`; null with a reason when it spans several. */
export function nodeOf(cpuList: Fact<string>, numa: Numa, who: string): Fact<number> {
  if (cpuList.value === null) return missing(cpuList.reason);
  if (numa.nodes.value === null || !numa.cpusByNode) return missing(numa.nodes.reason ?? 'NUMA unknown');
  const cpus = parseCpuList(cpuList.value) ?? [];
  const nodes = new Set<number>();
  for (const cpu of cpus) {
    for (const [node, list] of numa.cpusByNode) if (list.includes(cpu)) nodes.add(node);
  }
  if (nodes.size === 1) return known([...nodes][0] as number);
  if (nodes.size === 0) return missing(`${who} CPUs ${cpuList.value} are in no NUMA node's cpulist`);
  return missing(
    `${who} may run on CPUs of NUMA nodes ${[...nodes].sort((a, b) => a - b).join(',')} (CPUs ${cpuList.value}): no single node`,
  );
}

// ---- Memory --------------------------------------------------------------------------------------

export function readMeminfo(root: string): {
  totalBytes: Fact<number>;
  swapTotalBytes: Fact<number>;
  swapUsedBytes: Fact<number>;
} {
  const r = readSys(root, '/proc/meminfo');
  if (!r.ok)
    return {
      totalBytes: missing(r.reason),
      swapTotalBytes: missing(r.reason),
      swapUsedBytes: missing(r.reason),
    };
  const m = parseColonLines(r.text);
  const get = (k: string): Fact<number> => {
    const v = kbToBytes(m.get(k));
    return v === null ? missing(`no ${k} in /proc/meminfo`) : known(v);
  };
  const total = get('MemTotal');
  const swapTotal = get('SwapTotal');
  const swapFree = get('SwapFree');
  const swapUsed: Fact<number> =
    swapTotal.value !== null && swapFree.value !== null
      ? known(swapTotal.value - swapFree.value)
      : missing(swapTotal.reason ?? swapFree.reason ?? 'swap unknown');
  return { totalBytes: total, swapTotalBytes: swapTotal, swapUsedBytes: swapUsed };
}
