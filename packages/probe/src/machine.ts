/**
 * The client machine block of a result: what hardware and OS produced the numbers, and what on
 * it is known to skew Redis benchmarks (VMs, THP, swap, frequency scaling, NUMA placement).
 *
 * Sources: systeminformation where it covers a field (CPU counts, memory, swap, its
 * virtualization view), /proc and /sys (linux.ts) where it does not (NUMA, affinity, THP,
 * governor, mitigations, containers, DMI) and Node's os module as the last resort. Three
 * exceptions prefer the raw source because systeminformation's answer varies with things other
 * than the machine: the CPU model string (it rewrites it), the cache sizes (lscpu version) and
 * the base/max clock (it falls back to a lookup table or the current frequency). The OS release
 * is read from files (os-info.ts) because si.osInfo() may send a DNS query.
 *
 * Fields nobody can answer are null with every source's reason in `unknown`. The probe never
 * throws, and systeminformation is bounded by `timeoutMs` (5 s) so it cannot hang a run.
 */

import os from 'node:os';
import { cleanMachine } from './clean.js';
import { queryCloudMetadata } from './cloud-metadata.js';
import { ensureReasons, type Fact, firstKnown, known, missing, take } from './fact.js';
import {
  type CpuInfo,
  nodeOf,
  readAffinity,
  readCaches,
  readCpuFreq,
  readCpuInfo,
  readGovernor,
  readMeminfo,
  readMitigations,
  readNuma,
  readThp,
  readTopology,
} from './linux.js';
import { readOsFacts } from './os-info.js';
import { gatherSi, type SiFacts, siNumber, siString, siUnavailable } from './si-facts.js';
import { notLinuxReason, readTrimmed } from './sysfs.js';
import type { Machine } from './types.js';
import {
  classifyVirtualization,
  type Dmi,
  detectCloud,
  readVirtEvidence,
  type VirtEvidence,
} from './virtualization.js';

export interface ProbeMachineOptions {
  /** PID of a redis-server on this machine: its CPU affinity and NUMA node are recorded. */
  serverPid?: number | null;
  /**
   * Where /proc and /sys are read from. '/' in production; tests use a temp tree. With any other
   * root, systeminformation and the os module are not consulted: they describe this machine.
   */
  root?: string;
  /** @default process.platform */
  platform?: NodeJS.Platform;
  /** @default process.env (for the `container` and KUBERNETES_SERVICE_HOST variables) */
  env?: Record<string, string | undefined>;
  /** Bound on the systeminformation calls. @default 5000 */
  timeoutMs?: number;
  /** @default true (when root is '/') */
  useSystemInformation?: boolean;
  /**
   * Told of each systeminformation call that gave no answer (it missed `timeoutMs`, or failed), with
   * why: the fields it would have given then come from /proc, /sys or the os module.
   */
  onSiMissed?: (reason: string) => void;
  /** Ask the cloud metadata service (169.254.169.254) for the instance type. @default false */
  allowNetwork?: boolean;
}

export async function probeMachine(opts: ProbeMachineOptions = {}): Promise<Machine> {
  const p = await probeContext(opts);
  const { root, platform, linux, notLinux } = p;
  const unknown: Record<string, string> = {};
  const u = <T>(path: string, f: Fact<T>) => take(unknown, path, f);

  const cpu = cpuFacts(p);
  const { numa, clientCpus, serverCpus } = placementFacts(p, opts.serverPid ?? null);
  const memory = memoryFacts(p);
  const { virt, cloud } = await virtualizationFacts(p, cpu.cpuinfo, opts.allowNetwork === true);
  const osFacts = readOsFacts(root, platform, p.host);
  const thp = linux ? readThp(root) : { enabled: notLinux, defrag: notLinux };
  const { cpuinfo } = cpu;

  const machine: Machine = {
    cpu: {
      model: u('cpu.model', cpu.model),
      vendor: u('cpu.vendor', cpu.vendor),
      sockets: u('cpu.sockets', cpu.sockets),
      cores: u('cpu.cores', cpu.cores),
      threads: u('cpu.threads', cpu.threads),
      smt: u('cpu.smt', cpu.smt),
      baseMhz: u('cpu.baseMhz', cpu.baseMhz),
      maxMhz: u('cpu.maxMhz', cpu.maxMhz),
      cacheL1dKiB: u('cpu.cacheL1dKiB', cpu.cacheL1dKiB),
      cacheL2KiB: u('cpu.cacheL2KiB', cpu.cacheL2KiB),
      cacheL3KiB: u('cpu.cacheL3KiB', cpu.cacheL3KiB),
      family: u('cpu.family', cpuinfo ? cpuinfoNumber(cpuinfo, 'family', "'cpu family'") : notLinux),
      modelNumber: u(
        'cpu.modelNumber',
        cpuinfo ? cpuinfoNumber(cpuinfo, 'modelNumber', "'model'") : notLinux,
      ),
      stepping: u('cpu.stepping', cpuinfo ? cpuinfoNumber(cpuinfo, 'stepping', "'stepping'") : notLinux),
    },
    numa: {
      nodes: u('numa.nodes', numa.nodes),
      clientNode: u('numa.clientNode', linux ? nodeOf(clientCpus, numa, 'the client') : notLinux),
      clientCpus: u('numa.clientCpus', clientCpus),
      serverNode: u('numa.serverNode', linux ? nodeOf(serverCpus, numa, 'the server') : notLinux),
      serverCpus: u('numa.serverCpus', serverCpus),
    },
    memory: { totalBytes: u('memory.totalBytes', memory.totalBytes) },
    virtualization: {
      kind: u('virtualization.kind', virt.kind),
      hypervisor: u('virtualization.hypervisor', virt.hypervisor),
      container: u('virtualization.container', virt.container),
    },
    cloud: {
      provider: u('cloud.provider', cloud.provider),
      instanceType: u('cloud.instanceType', cloud.instanceType),
    },
    os: {
      platform,
      distro: u('os.distro', osFacts.distro),
      release: u('os.release', osFacts.release),
      kernel: u('os.kernel', osFacts.kernel),
      arch: os.arch(),
    },
    thp: { enabled: u('thp.enabled', thp.enabled), defrag: u('thp.defrag', thp.defrag) },
    cpuGovernor: u('cpuGovernor', linux ? readGovernor(root) : notLinux),
    swapTotalBytes: u('swapTotalBytes', memory.swapTotal),
    swapUsedBytes: u('swapUsedBytes', memory.swapUsed),
    mitigations: u('mitigations', linux ? readMitigations(root) : notLinux),
    unknown,
  };
  ensureReasons(machine, unknown);
  return cleanMachine(machine);
}

/** What every step of the probe reads: where from, on which platform, and systeminformation's facts. */
interface Probe {
  root: string;
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  /** The root is this machine's: systeminformation and the os module describe it. */
  host: boolean;
  linux: boolean;
  siFacts: SiFacts;
  /** The reason of a fact only Linux gives. */
  notLinux: Fact<never>;
}

async function probeContext(opts: ProbeMachineOptions): Promise<Probe> {
  const root = opts.root ?? '/';
  const platform = opts.platform ?? process.platform;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const host = root === '/';
  let siFacts: SiFacts;
  if (!host)
    siFacts = siUnavailable(`systeminformation not consulted: it describes this machine, not root ${root}`);
  else if (opts.useSystemInformation === false)
    siFacts = siUnavailable('systeminformation disabled by the caller');
  else {
    siFacts = await gatherSi(timeoutMs);
    for (const fact of Object.values(siFacts)) if (fact.reason !== null) opts.onSiMissed?.(fact.reason);
  }
  return {
    root,
    platform,
    env: opts.env ?? process.env,
    timeoutMs,
    host,
    linux: platform === 'linux',
    siFacts,
    notLinux: missing<never>(notLinuxReason(platform)),
  };
}

/** The CPU: model and vendor, counts, clocks and caches, each from the first source that knows. */
function cpuFacts({ root, platform, host, linux, siFacts, notLinux }: Probe) {
  const cpuinfo = linux ? readCpuInfo(root) : null;
  const hostModel = host ? os.cpus()[0]?.model?.trim() : undefined;
  // The raw model string (as /proc/cpuinfo, sysctl or the registry give it) rather than
  // systeminformation's cleaned-up brand: it is what people grep for, and it does not change
  // with the library's cleaning rules.
  const model = firstKnown<string>(
    cpuinfo?.modelName
      ? known(cpuinfo.modelName)
      : missing(cpuinfo?.reason ?? "no 'model name' in /proc/cpuinfo"),
    hostModel && hostModel !== 'unknown' ? known(hostModel) : missing('os.cpus() reported no model'),
    siString(siFacts.cpu, (c) => `${c.manufacturer} ${c.brand}`, 'cpu brand'),
  );
  const vendor = firstKnown<string>(
    cpuinfo?.vendorId
      ? known(cpuVendor(cpuinfo.vendorId))
      : missing(cpuinfo?.reason ?? "no 'vendor_id' in /proc/cpuinfo"),
    siString(siFacts.cpu, (c) => c.vendor || c.manufacturer, 'cpu vendor'),
  );
  const topo = linux ? readTopology(root) : null;
  const sockets = firstKnown(
    siNumber(siFacts.cpu, (c) => c.processors, 'cpu sockets'),
    topo?.sockets ?? notLinux,
  );
  const cores = firstKnown(
    siNumber(siFacts.cpu, (c) => c.physicalCores, 'physical cores'),
    topo?.cores ?? notLinux,
  );
  const threads = firstKnown(
    siNumber(siFacts.cpu, (c) => c.cores, 'logical CPUs'),
    topo?.threads ?? notLinux,
    host ? known(os.cpus().length) : missing('os module not consulted'),
  );
  const smt: Fact<boolean> =
    cores.value !== null && threads.value !== null
      ? known(threads.value > cores.value)
      : missing(cores.reason ?? threads.reason ?? 'cores unknown');
  const freq = linux ? readCpuFreq(root) : null;
  // The base clock: Intel (and older AMD) model strings carry it ("@ 2.90GHz"); intel_pstate
  // exposes it in sysfs. The current frequency is not the base, so it is not used.
  const atGhz = /@\s*([\d.]+)\s*GHz/i.exec(model.value ?? '')?.[1];
  const baseMhz: Fact<number> = atGhz
    ? known(Math.round(Number(atGhz) * 1000))
    : freq?.baseMhz.value != null
      ? freq.baseMhz
      : missing(
          `the CPU model string has no '@ ...GHz' and ${freq?.baseMhz.reason ?? notLinuxReason(platform)}`,
        );
  const maxMhz = firstKnown<number>(
    freq?.maxMhz ?? notLinux,
    siNumber(siFacts.cpu, (c) => c.speedMax * 1000, 'max speed'),
  );
  const caches = linux ? readCaches(root) : null;
  const siCache = (k: 'l1d' | 'l2' | 'l3') => siNumber(siFacts.cpu, (c) => c.cache?.[k] / 1024, `${k} cache`);
  return {
    cpuinfo,
    model,
    vendor,
    sockets,
    cores,
    threads,
    smt,
    baseMhz,
    maxMhz,
    cacheL1dKiB: firstKnown(caches?.l1d ?? notLinux, siCache('l1d')),
    cacheL2KiB: firstKnown(caches?.l2 ?? notLinux, siCache('l2')),
    cacheL3KiB: firstKnown(caches?.l3 ?? notLinux, siCache('l3')),
  };
}

/** NUMA nodes, and the CPUs the client and the (local) server may run on. */
function placementFacts({ root, linux, notLinux }: Probe, serverPid: number | null) {
  const numa = linux ? readNuma(root) : { nodes: notLinux, cpusByNode: null };
  const clientCpus: Fact<string> = linux ? readAffinity(root, 'self') : notLinux;
  const serverCpus: Fact<string> = !linux
    ? notLinux
    : serverPid === null
      ? missing('no local server process id given (the server is remote or its pid is unknown)')
      : readAffinity(root, serverPid);
  return { numa, clientCpus, serverCpus };
}

/** Memory and swap. */
function memoryFacts({ root, host, linux, siFacts, notLinux }: Probe) {
  const meminfo = linux ? readMeminfo(root) : null;
  const totalBytes = firstKnown<number>(
    siNumber(siFacts.mem, (m) => m.total, 'total memory'),
    meminfo?.totalBytes ?? notLinux,
    host ? known(os.totalmem()) : missing('os module not consulted'),
  );
  const siSwap = (
    pick: (m: { swaptotal: number; swapused: number }) => number,
    what: string,
  ): Fact<number> =>
    siFacts.mem.value === null
      ? missing(siFacts.mem.reason)
      : Number.isFinite(pick(siFacts.mem.value))
        ? known(pick(siFacts.mem.value))
        : missing(`systeminformation returned no value for ${what}`);
  const swapTotal = firstKnown(
    siSwap((m) => m.swaptotal, 'swap total'),
    meminfo?.swapTotalBytes ?? notLinux,
  );
  const swapUsed = firstKnown(
    siSwap((m) => m.swapused, 'swap used'),
    meminfo?.swapUsedBytes ?? notLinux,
  );
  return { totalBytes, swapTotal, swapUsed };
}

/** VM or bare metal, which hypervisor and container, and which cloud (its metadata service when allowed). */
async function virtualizationFacts(p: Probe, cpuinfo: CpuInfo | null, allowNetwork: boolean) {
  const { root, env, linux, siFacts } = p;
  const sys = siFacts.system.value;
  const siView = sys ? { virtual: sys.virtual, virtualHost: sys.virtualHost?.trim() || null } : null;
  let evidence: VirtEvidence;
  let dmi: Dmi;
  if (linux) {
    evidence = { ...readVirtEvidence(root, env), cpuFlags: cpuinfo?.flags ?? null, si: siView };
    dmi = evidence.dmi;
  } else {
    // No /sys: systeminformation's manufacturer/model (WMI, ioreg) stand in for DMI strings.
    dmi = {
      sysVendor: sys?.manufacturer || null,
      productName: sys?.model || null,
      boardVendor: null,
      chassisAssetTag: null,
      biosVendor: null,
      biosVersion: null,
      reason: sys ? null : siFacts.system.reason,
    };
    evidence = {
      dmi,
      cpuFlags: null,
      hypervisorType: null,
      clocksources: [],
      si: siView,
      container: null,
      containerCheckable: false,
    };
  }
  const virt = classifyVirtualization(evidence);
  if (!linux && siView && !siView.virtual && virt.kind.value === null) {
    // Off Linux there is no CPU flag to read: systeminformation's negative answer is the best there is.
    virt.kind = known('bare-metal');
    virt.hypervisor = missing('not applicable: systeminformation reports no virtualization');
  }
  const cloud = detectCloud(dmi, linux ? readTrimmed(root, '/sys/hypervisor/uuid') : null);
  if (allowNetwork && cloud.provider.value && cloud.instanceType.value === null) {
    const meta = await queryCloudMetadata({
      timeoutMs: Math.min(p.timeoutMs, 1_000),
      provider: cloud.provider.value,
    });
    if (meta) cloud.instanceType = known(meta.instanceType);
    else cloud.instanceType = missing(`${cloud.instanceType.reason}; the metadata service did not answer`);
  }
  return { virt, cloud };
}

/** A numeric field of /proc/cpuinfo as a fact: not a guess from the model string where absent. */
function cpuinfoNumber(
  info: CpuInfo,
  field: 'family' | 'modelNumber' | 'stepping',
  name: string,
): Fact<number> {
  const v = info[field];
  if (v !== null) return known(v);
  return missing(info.reason ?? `no numeric ${name} in /proc/cpuinfo (not an x86 CPU?)`);
}

/** CPUID vendor strings → the short names systeminformation also uses. */
function cpuVendor(id: string): string {
  const names: Record<string, string> = {
    GenuineIntel: 'Intel',
    AuthenticAMD: 'AMD',
    HygonGenuine: 'Hygon',
    CentaurHauls: 'Centaur',
  };
  return names[id] ?? id;
}
