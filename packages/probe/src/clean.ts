import { cleanText, TEXT_MAX } from '@redis-benchdb/result';
import type { Machine, Server, UnknownMap } from './types.js';

/**
 * What probes read (/proc/cpuinfo, os-release, INFO, CONFIG GET, systeminformation) is whatever
 * the machine or the server says: a patched kernel or a hostile server can answer a 1 MB CPU model
 * or a version with a right-to-left override in it. The result format refuses such text, so every
 * block leaves its probe through here: control and bidi characters removed, white space collapsed,
 * each field cut to its schema's maxLength. A run never fails, nor signs what the site cannot show.
 */

const text = (s: string | null, max: number): string | null => (s === null ? null : cleanText(s, max));

/** Every reason cleaned and cut; one that cleans to nothing still says that something was missing. */
export function cleanReasons(unknown: UnknownMap): UnknownMap {
  for (const [path, reason] of Object.entries(unknown))
    unknown[path] = cleanText(reason, TEXT_MAX.unknownReason) || 'no readable reason was given';
  return unknown;
}

// The kernel names these files (spectre_v2, tsx_async_abort); anything else is not a vulnerability.
const MITIGATION_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export function cleanMachine(m: Machine): Machine {
  const mitigations =
    m.mitigations === null
      ? null
      : Object.fromEntries(
          Object.entries(m.mitigations)
            .filter(([name]) => MITIGATION_NAME.test(name))
            .map(([name, state]) => [name, cleanText(state, TEXT_MAX.mitigation)]),
        );
  return {
    ...m,
    cpu: {
      ...m.cpu,
      model: text(m.cpu.model, TEXT_MAX.cpuModel),
      vendor: text(m.cpu.vendor, TEXT_MAX.cpuVendor),
    },
    virtualization: {
      ...m.virtualization,
      hypervisor: text(m.virtualization.hypervisor, TEXT_MAX.hypervisor),
      container: text(m.virtualization.container, TEXT_MAX.container),
    },
    cloud: {
      provider: text(m.cloud.provider, TEXT_MAX.cloudProvider),
      instanceType: text(m.cloud.instanceType, TEXT_MAX.instanceType),
    },
    os: {
      platform: cleanText(m.os.platform, TEXT_MAX.osPlatform),
      distro: text(m.os.distro, TEXT_MAX.osDistro),
      release: text(m.os.release, TEXT_MAX.osRelease),
      kernel: text(m.os.kernel, TEXT_MAX.osKernel),
      arch: cleanText(m.os.arch, TEXT_MAX.osArch),
    },
    thp: { ...m.thp, defrag: text(m.thp.defrag, TEXT_MAX.thpDefrag) },
    cpuGovernor: text(m.cpuGovernor, TEXT_MAX.cpuGovernor),
    mitigations,
    unknown: cleanReasons(m.unknown),
  };
}

export function cleanServer(s: Server): Server {
  return {
    ...s,
    version: text(s.version, TEXT_MAX.serverVersion),
    gitSha: text(s.gitSha, TEXT_MAX.serverGitSha),
    buildId: text(s.buildId, TEXT_MAX.serverBuildId),
    allocator: text(s.allocator, TEXT_MAX.serverAllocator),
    persistence: {
      ...s.persistence,
      save: text(s.persistence.save, TEXT_MAX.serverSave),
      appendfsync: text(s.persistence.appendfsync, TEXT_MAX.serverAppendfsync),
    },
    maxmemoryPolicy: text(s.maxmemoryPolicy, TEXT_MAX.serverMaxmemoryPolicy),
    multiplexingApi: text(s.multiplexingApi, TEXT_MAX.serverMultiplexingApi),
    os: text(s.os, TEXT_MAX.serverOs),
    loglevel: text(s.loglevel, TEXT_MAX.serverLoglevel),
    unknown: cleanReasons(s.unknown),
  };
}
