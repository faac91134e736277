/**
 * Is the client a VM, a container, both, or bare metal; which hypervisor and container runtime.
 * The Redis docs say Redis runs slower on a VM than on the same hardware without one, and that
 * intrinsic latency is much worse there, so results from the two must not be mixed silently.
 *
 * Everything comes from local files: the x86 `hypervisor` CPU flag, DMI strings, /sys/hypervisor,
 * the kvm-clock/Hyper-V clock sources, container marker files, cgroup and mount paths.
 */

import { type Fact, known, missing } from './fact.js';
import { exists, readSys, readTrimmed } from './sysfs.js';
import type { VirtualizationKind } from './types.js';

const DMI_DIR = '/sys/class/dmi/id';

export interface Dmi {
  sysVendor: string | null;
  productName: string | null;
  boardVendor: string | null;
  chassisAssetTag: string | null;
  biosVendor: string | null;
  biosVersion: string | null;
  /** Why there is no DMI at all (e.g. "file /sys/class/dmi/id/sys_vendor absent"), else null. */
  reason: string | null;
}

export function readDmi(root: string): Dmi {
  const f = (name: string) => readTrimmed(root, `${DMI_DIR}/${name}`);
  const dmi: Dmi = {
    sysVendor: f('sys_vendor'),
    productName: f('product_name'),
    boardVendor: f('board_vendor'),
    chassisAssetTag: f('chassis_asset_tag'),
    biosVendor: f('bios_vendor'),
    biosVersion: f('bios_version'),
    reason: null,
  };
  if (Object.values(dmi).every((v) => v === null)) {
    const r = readSys(root, `${DMI_DIR}/sys_vendor`);
    dmi.reason = r.ok ? `file ${DMI_DIR}/sys_vendor is empty` : `${r.reason} (no DMI on this machine)`;
  }
  return dmi;
}

/** Hypervisors recognisable from DMI strings; `impliesVm` false for clouds that also sell bare metal. */
export function dmiPlatform(d: Dmi): { label: string; impliesVm: boolean } | null {
  const vendor = d.sysVendor ?? '';
  const product = d.productName ?? '';
  const all = [d.sysVendor, d.productName, d.boardVendor, d.biosVendor].filter(Boolean).join(' | ');
  if (/^QEMU/i.test(vendor) || /QEMU/i.test(d.biosVendor ?? '')) return { label: 'QEMU', impliesVm: true };
  if (product === 'KVM' || /^KVM$/i.test(vendor)) return { label: 'KVM', impliesVm: true };
  if (/VMware/i.test(all)) return { label: 'VMware', impliesVm: true };
  if (/innotek|VirtualBox/i.test(all)) return { label: 'VirtualBox', impliesVm: true };
  if (/Parallels/i.test(all)) return { label: 'Parallels', impliesVm: true };
  if (/^BHYVE$/i.test(vendor)) return { label: 'bhyve', impliesVm: true };
  if (/^Microsoft Corporation$/i.test(vendor) && /^Virtual Machine$/i.test(product))
    return { label: 'Microsoft Hyper-V', impliesVm: true };
  if (/^Xen$/i.test(vendor) || /^Xen$/i.test(d.biosVendor ?? '')) return { label: 'Xen', impliesVm: true };
  // Clouds: their metal instances carry the same vendor string, so only the CPU flag says "VM".
  if (/Amazon EC2/i.test(all)) return { label: 'Amazon EC2', impliesVm: false };
  if (/^Google$/i.test(vendor) || /Google Compute Engine/i.test(product))
    return { label: 'Google Compute Engine', impliesVm: false };
  if (/^DigitalOcean$/i.test(vendor)) return { label: 'DigitalOcean', impliesVm: false };
  if (/^Hetzner$/i.test(vendor)) return { label: 'Hetzner', impliesVm: false };
  if (/Alibaba Cloud/i.test(all)) return { label: 'Alibaba Cloud', impliesVm: false };
  if (/OpenStack/i.test(all)) return { label: 'OpenStack', impliesVm: false };
  return null;
}

export interface VirtEvidence {
  /** x86 CPU flags; null when /proc/cpuinfo has no flags line (other architectures) or is absent. */
  cpuFlags: Set<string> | null;
  dmi: Dmi;
  /** /sys/hypervisor/type ("xen"). */
  hypervisorType: string | null;
  /** /sys/devices/system/clocksource/clocksource0/available_clocksource. */
  clocksources: string[];
  /** systeminformation's si.system() view, when it was consulted (it reads dmesg, among others). */
  si: { virtual: boolean; virtualHost: string | null } | null;
  container: { name: string; evidence: string } | null;
  /** True when container markers could be looked for (Linux). */
  containerCheckable: boolean;
}

export function readVirtEvidence(
  root: string,
  env: Record<string, string | undefined>,
): Omit<VirtEvidence, 'si' | 'cpuFlags'> {
  const clock = readTrimmed(root, '/sys/devices/system/clocksource/clocksource0/available_clocksource');
  return {
    dmi: readDmi(root),
    hypervisorType: readTrimmed(root, '/sys/hypervisor/type'),
    clocksources: clock ? clock.split(/\s+/) : [],
    container: detectContainer(root, env),
    containerCheckable: true,
  };
}

/**
 * Container runtime from marker files, the `container` variable (systemd-nspawn, LXC, podman set
 * it), Kubernetes' service variables, and the cgroup and mount paths of PID 1 and this process.
 */
export function detectContainer(
  root: string,
  env: Record<string, string | undefined>,
): { name: string; evidence: string } | null {
  const cgroup = readSys(root, '/proc/1/cgroup');
  const selfCgroup = readSys(root, '/proc/self/cgroup');
  const cg = `${cgroup.ok ? cgroup.text : ''}\n${selfCgroup.ok ? selfCgroup.text : ''}`;
  const mounts = readSys(root, '/proc/self/mountinfo');
  const mi = mounts.ok ? mounts.text : '';
  if (/kubepods/.test(cg) || /\/kubelet\/pods\//.test(mi) || env.KUBERNETES_SERVICE_HOST)
    return { name: 'kubernetes', evidence: 'kubepods cgroup, kubelet mounts or KUBERNETES_SERVICE_HOST' };
  if (exists(root, '/.dockerenv')) return { name: 'docker', evidence: '/.dockerenv exists' };
  if (exists(root, '/run/.containerenv')) {
    const engine = /engine="([a-z]+)/.exec(readTrimmed(root, '/run/.containerenv') ?? '')?.[1];
    return { name: engine ?? 'podman', evidence: '/run/.containerenv exists' };
  }
  const envName = env.container?.trim();
  if (envName) return { name: envName, evidence: `environment variable container=${envName}` };
  if (/\/docker[/-]/.test(cg) || /\/var\/lib\/docker\/|\/docker\/containers\//.test(mi))
    return { name: 'docker', evidence: 'docker paths in cgroup or mountinfo' };
  if (/libpod/.test(cg)) return { name: 'podman', evidence: 'libpod cgroup' };
  if (/\/lxc[/.]|lxc\.payload/.test(cg)) return { name: 'lxc', evidence: 'lxc cgroup' };
  if (/containerd/.test(cg) || /io\.containerd\./.test(mi))
    return { name: 'containerd', evidence: 'containerd cgroup or mounts' };
  return null;
}

function clocksourceHypervisor(sources: string[]): string | null {
  if (sources.includes('kvm-clock')) return 'KVM';
  if (sources.some((s) => s.startsWith('hyperv_clocksource'))) return 'Microsoft Hyper-V';
  if (sources.includes('xen')) return 'Xen';
  return null;
}

export interface Virtualization {
  kind: Fact<VirtualizationKind>;
  hypervisor: Fact<string>;
  container: Fact<string>;
}

export function classifyVirtualization(e: VirtEvidence): Virtualization {
  const dmi = dmiPlatform(e.dmi);
  const tech =
    (e.hypervisorType ? capitalise(e.hypervisorType) : null) ??
    clocksourceHypervisor(e.clocksources) ??
    (e.si?.virtual && e.si.virtualHost ? e.si.virtualHost : null);
  const vmEvidence =
    (e.cpuFlags?.has('hypervisor') ?? false) ||
    (dmi?.impliesVm ?? false) ||
    e.hypervisorType !== null ||
    clocksourceHypervisor(e.clocksources) !== null ||
    e.si?.virtual === true;
  // Without a flags line (arm64...) the absence of evidence proves nothing.
  const vmKnownAbsent = !vmEvidence && e.cpuFlags !== null;

  let hypervisor: Fact<string>;
  if (vmEvidence) {
    let label = dmi?.label ?? null;
    if (label && tech && !label.toLowerCase().includes(tech.toLowerCase())) label = `${label} (${tech})`;
    label ??= tech;
    hypervisor = label
      ? known(label)
      : missing(
          'the CPU reports a hypervisor but no DMI string, /sys/hypervisor/type or clock source names it',
        );
  } else if (vmKnownAbsent) {
    hypervisor = missing('not applicable: not a virtual machine (no hypervisor CPU flag or DMI/sysfs hint)');
  } else {
    hypervisor = missing(
      'cannot tell whether this is a virtual machine: /proc/cpuinfo has no x86 flags line and no DMI or sysfs hint names a hypervisor',
    );
  }

  let container: Fact<string>;
  if (e.container) container = known(e.container.name);
  else if (e.containerCheckable)
    container = missing('not applicable: no container marker (/.dockerenv, /run/.containerenv, cgroup, env)');
  else container = missing('container markers can only be checked on Linux');

  const inContainer = e.container !== null;
  let kind: Fact<VirtualizationKind>;
  if (vmEvidence) kind = known(inContainer ? 'vm+container' : 'vm');
  else if (vmKnownAbsent) kind = known(inContainer ? 'container' : 'bare-metal');
  else kind = missing(hypervisor.reason ?? 'unknown');
  return { kind, hypervisor, container };
}

function capitalise(s: string): string {
  const t = s.trim();
  return t.toLowerCase() === 'xen' ? 'Xen' : t.charAt(0).toUpperCase() + t.slice(1);
}

// ---- Cloud ---------------------------------------------------------------------------------------

const AZURE_ASSET_TAG = '7783-7084-3265-9085-8269-3286-77';

export interface Cloud {
  provider: Fact<string>;
  instanceType: Fact<string>;
}

/**
 * The cloud provider and, where DMI carries it (EC2 only), the instance type. Other clouds keep
 * the machine type in their metadata service, which is not queried unless the caller allows
 * network use (see cloud-metadata.ts).
 */
export function detectCloud(d: Dmi, hypervisorUuid: string | null): Cloud {
  const all = [d.sysVendor, d.productName, d.boardVendor, d.biosVendor].filter(Boolean).join(' | ');
  const viaMetadata = (p: string) =>
    missing<string>(
      `${p} does not expose the instance type locally; only its metadata service does (network use is off)`,
    );
  if (/Amazon EC2/i.test(all)) {
    const p = d.productName ?? '';
    return {
      provider: known('aws'),
      instanceType: /^[a-z][a-z0-9-]*\.[a-z0-9-]+$/.test(p)
        ? known(p)
        : missing(`DMI product_name "${p}" is not an EC2 instance type`),
    };
  }
  if ((hypervisorUuid ?? '').toLowerCase().startsWith('ec2') || /amazon/i.test(d.biosVersion ?? ''))
    return { provider: known('aws'), instanceType: viaMetadata('Xen-based EC2') };
  if (/^Google$/i.test(d.sysVendor ?? '') || /Google Compute Engine/i.test(d.productName ?? ''))
    return { provider: known('gcp'), instanceType: viaMetadata('Google Compute Engine') };
  if (d.chassisAssetTag === AZURE_ASSET_TAG)
    return { provider: known('azure'), instanceType: viaMetadata('Azure') };
  if (/^DigitalOcean$/i.test(d.sysVendor ?? ''))
    return { provider: known('digitalocean'), instanceType: viaMetadata('DigitalOcean') };
  if (/^Hetzner$/i.test(d.sysVendor ?? ''))
    return { provider: known('hetzner'), instanceType: viaMetadata('Hetzner') };
  if (d.chassisAssetTag === 'OracleCloud.com')
    return { provider: known('oracle'), instanceType: viaMetadata('Oracle Cloud') };
  if (/Alibaba Cloud/i.test(all))
    return { provider: known('alibaba'), instanceType: viaMetadata('Alibaba Cloud') };
  const why = d.reason
    ? d.reason
    : `DMI sys_vendor "${d.sysVendor ?? ''}" / product_name "${d.productName ?? ''}" is not a known cloud (on-premises or an unlisted provider)`;
  return { provider: missing(why), instanceType: missing('no cloud provider identified') };
}
