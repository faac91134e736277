import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeMachine } from '../src/machine.js';
import type { Machine } from '../src/types.js';
import { classifyVirtualization, type Dmi, detectCloud, detectContainer } from '../src/virtualization.js';

const isLinux = process.platform === 'linux';
const readOr = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
const cpuFlags = /^flags\s*:(.*)$/m.exec(readOr('/proc/cpuinfo'))?.[1]?.trim().split(/\s+/) ?? [];
const clocksources = readOr('/sys/devices/system/clocksource/clocksource0/available_clocksource').split(
  /\s+/,
);
const inContainer = existsSync('/.dockerenv') || existsSync('/run/.containerenv');
const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
});

/** Every leaf path of the block (except `unknown`), with its value. */
function leaves(obj: object, prefix = ''): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(obj)) {
    if (prefix === '' && (k === 'unknown' || k === 'mitigations')) {
      out.push([k, v === null ? null : 'object']);
      continue;
    }
    const p = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object') out.push(...leaves(v, p));
    else out.push([p, v]);
  }
  return out;
}

function expectConsistent(m: Machine): void {
  for (const [p, v] of leaves(m)) {
    expect(v, `${p} is undefined`).not.toBeUndefined();
    if (v === null) expect(m.unknown[p], `${p} is null without a reason`).toMatch(/\S/);
    // The reverse: a reason only for a field that is actually null.
  }
  for (const p of Object.keys(m.unknown)) {
    const v = p.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], m);
    expect(v, `unknown lists ${p} but it has a value`).toBeNull();
  }
}

describe.runIf(isLinux)('probeMachine on this Linux machine', () => {
  it('matches /proc, /sys and the os module', async () => {
    const m = await probeMachine({ serverPid: process.pid });
    expectConsistent(m);

    // Cores and threads from the sysfs topology, computed another way: distinct (package, core_id).
    const cpuDir = '/sys/devices/system/cpu';
    const cpus = readdirSync(cpuDir).filter((n) => /^cpu\d+$/.test(n));
    const online = cpus.filter((c) => existsSync(`${cpuDir}/${c}/topology/core_id`));
    const coreIds = new Set(
      online.map(
        (c) =>
          `${readFileSync(`${cpuDir}/${c}/topology/physical_package_id`, 'utf8').trim()}:${readFileSync(`${cpuDir}/${c}/topology/core_id`, 'utf8').trim()}`,
      ),
    );
    expect(m.cpu.threads).toBe(os.cpus().length);
    expect(m.cpu.cores).toBe(coreIds.size);
    expect(m.cpu.smt).toBe(os.cpus().length > coreIds.size);

    expect(m.memory.totalBytes).not.toBeNull();
    expect(Math.abs((m.memory.totalBytes as number) - os.totalmem()) / os.totalmem()).toBeLessThan(0.01);

    const thp = readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8');
    expect(m.thp.enabled).toBe(/\[(\w+)\]/.exec(thp)?.[1]);

    const allowed = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    expect(m.numa.clientCpus).toBe(allowed);
    expect(m.numa.serverCpus).toBe(allowed); // serverPid is our own pid here
    expect(m.os.platform).toBe('linux');
    expect(m.os.kernel).toBe(os.release());

    const governor = '/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor';
    if (existsSync(governor)) {
      expect(m.cpuGovernor).toBe(readFileSync(governor, 'utf8').trim());
    } else {
      expect(m.cpuGovernor).toBeNull();
      expect(m.unknown.cpuGovernor).toMatch(/scaling_governor absent/);
    }
    if (existsSync('/sys/class/dmi/id/sys_vendor')) {
      expect(m.unknown['cloud.provider'] ?? '').not.toMatch(/sys_vendor absent/);
    } else {
      expect(m.unknown['cloud.provider']).toMatch(/dmi\/id\/sys_vendor absent/);
    }
  });

  // Which of these runs depends on the machine: each names the evidence it needs, and the crafted
  // roots below cover every case on any machine.
  it.runIf(cpuFlags.includes('hypervisor'))(
    'calls a machine whose CPU has the hypervisor flag a VM (skipped: no hypervisor flag here)',
    async () => {
      const m = await probeMachine({ useSystemInformation: false });
      expect(m.virtualization.kind).toBe(inContainer ? 'vm+container' : 'vm');
    },
  );

  it.runIf(cpuFlags.length > 0 && !cpuFlags.includes('hypervisor'))(
    'calls a machine whose CPU flags lack hypervisor bare metal or a container (skipped: hypervisor flag or no flags line here)',
    async () => {
      const m = await probeMachine({ useSystemInformation: false });
      expect(m.virtualization.kind).toBe(inContainer ? 'container' : 'bare-metal');
    },
  );

  it.runIf(cpuFlags.includes('hypervisor') && clocksources.includes('kvm-clock'))(
    'names KVM when the kvm-clock clock source is offered (skipped: not a VM with kvm-clock here)',
    async () => {
      const m = await probeMachine({ useSystemInformation: false });
      expect(m.virtualization.hypervisor).toMatch(/KVM/);
    },
  );

  it.runIf(existsSync('/.dockerenv'))(
    'names docker when /.dockerenv exists (skipped: none here)',
    async () => {
      const m = await probeMachine({ useSystemInformation: false });
      expect(m.virtualization.container).toBe('docker');
    },
  );

  it('a systeminformation call that misses its deadline falls back (a 1 ms deadline)', async () => {
    const missed: string[] = [];
    const m = await probeMachine({ timeoutMs: 1, onSiMissed: (why) => missed.push(why) });
    // si.cpu() runs lscpu in a shell, which no machine does within 1 ms: the CPU counts below are
    // the fallback's (the sysfs topology, then the os module), not systeminformation's.
    expect(missed).toContain('systeminformation si.cpu() did not answer within 1 ms');
    // A call that failed outright fell back too.
    for (const why of missed)
      expect(why).toMatch(/^systeminformation si\.\w+\(\) (did not answer within 1 ms$|failed: )/);
    expectConsistent(m);
    expect(m.cpu.threads).toBe(os.cpus().length);
    expect(m.cpu.cores).toBeGreaterThan(0);
    expect(m.cpu.sockets).toBeGreaterThan(0);
    // Memory too, whichever way si.mem() went: from it, or from /proc/meminfo once it missed.
    expect(m.memory.totalBytes).toBeGreaterThan(0);
  });

  it('does not throw without systeminformation, and says where values came from', async () => {
    const m = await probeMachine({ useSystemInformation: false });
    expectConsistent(m);
    expect(m.cpu.threads).toBe(os.cpus().length);
    expect(m.memory.totalBytes).toBeGreaterThan(0);
  });
});

describe('probeMachine off Linux', () => {
  it('falls back to the os module and gives reasons instead of throwing', async () => {
    const m = await probeMachine({ platform: 'darwin', useSystemInformation: false });
    expectConsistent(m);
    expect(m.os.platform).toBe('darwin');
    expect(m.thp.enabled).toBeNull();
    expect(m.unknown['thp.enabled']).toMatch(/^not Linux \(darwin\)/);
    expect(m.unknown['numa.clientCpus']).toMatch(/^not Linux/);
    expect(m.cpu.threads).toBe(os.cpus().length);
    expect(m.memory.totalBytes).toBe(os.totalmem());
  });
});

// ---- A crafted /proc and /sys -----------------------------------------------------------------

async function fakeRoot(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'rbdb-probe-root-'));
  scratch.push(root);
  for (const [file, text] of Object.entries(files)) {
    const full = path.join(root, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  return root;
}

const CPU = 'sys/devices/system/cpu';
const intelBox: Record<string, string> = {
  'proc/cpuinfo':
    'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\nstepping\t: 7\nflags\t\t: fpu vme ht hypervisor avx2\n\nprocessor\t: 1\n',
  'proc/meminfo':
    'MemTotal:       16384000 kB\nMemFree:  1000 kB\nSwapTotal:       2097148 kB\nSwapFree:        1048572 kB\n',
  'proc/self/status': 'Name:\tnode\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n',
  'proc/4242/status': 'Name:\tredis-server\nCpus_allowed_list:\t0-3\n',
  'proc/4343/status': 'Name:\tredis-server\nCpus_allowed_list:\t3\n',
  'proc/sys/kernel/osrelease': '6.1.0-test\n',
  'etc/os-release': 'PRETTY_NAME="Test Linux 1"\nNAME="Test Linux"\nVERSION_ID="1.2"\n',
  'sys/kernel/mm/transparent_hugepage/enabled': '[always] madvise never\n',
  'sys/kernel/mm/transparent_hugepage/defrag': 'always defer [defer+madvise] madvise never\n',
  [`${CPU}/online`]: '0-3\n',
  [`${CPU}/vulnerabilities/meltdown`]: 'Mitigation: PTI\n',
  [`${CPU}/vulnerabilities/spectre_v2`]: 'Vulnerable\n',
  [`${CPU}/cpu0/cache/index0/level`]: '1\n',
  [`${CPU}/cpu0/cache/index0/type`]: 'Data\n',
  [`${CPU}/cpu0/cache/index0/size`]: '32K\n',
  [`${CPU}/cpu0/cache/index1/level`]: '1\n',
  [`${CPU}/cpu0/cache/index1/type`]: 'Instruction\n',
  [`${CPU}/cpu0/cache/index1/size`]: '32K\n',
  [`${CPU}/cpu0/cache/index2/level`]: '2\n',
  [`${CPU}/cpu0/cache/index2/type`]: 'Unified\n',
  [`${CPU}/cpu0/cache/index2/size`]: '1024K\n',
  [`${CPU}/cpu0/cache/index3/level`]: '3\n',
  [`${CPU}/cpu0/cache/index3/type`]: 'Unified\n',
  [`${CPU}/cpu0/cache/index3/size`]: '35M\n',
  'sys/devices/system/node/node0/cpulist': '0-1\n',
  'sys/devices/system/node/node1/cpulist': '2-3\n',
  'sys/devices/system/clocksource/clocksource0/available_clocksource': 'kvm-clock tsc acpi_pm\n',
  'sys/class/dmi/id/sys_vendor': 'Amazon EC2\n',
  'sys/class/dmi/id/product_name': 'm5.xlarge\n',
  '.dockerenv': '',
};
for (let cpu = 0; cpu < 4; cpu++) {
  // Two cores with two threads each: cpu0+cpu2, cpu1+cpu3.
  intelBox[`${CPU}/cpu${cpu}/topology/physical_package_id`] = '0\n';
  intelBox[`${CPU}/cpu${cpu}/topology/thread_siblings_list`] = cpu % 2 === 0 ? '0,2\n' : '1,3\n';
  intelBox[`${CPU}/cpu${cpu}/cpufreq/scaling_governor`] = 'powersave\n';
  intelBox[`${CPU}/cpu${cpu}/cpufreq/cpuinfo_max_freq`] = cpu === 3 ? '3900000\n' : '3500000\n';
}
intelBox[`${CPU}/cpu0/cpufreq/base_frequency`] = '2500000\n';

describe('probeMachine on a crafted root', () => {
  it('parses THP, governor, swap, topology, caches, NUMA, container and cloud', async () => {
    const root = await fakeRoot(intelBox);
    const m = await probeMachine({ root, platform: 'linux', env: {}, serverPid: 4242 });
    expectConsistent(m);
    expect(m.thp).toEqual({ enabled: 'always', defrag: 'defer+madvise' });
    expect(m.cpuGovernor).toBe('powersave');
    expect(m.swapTotalBytes).toBe(2097148 * 1024);
    expect(m.swapUsedBytes).toBe((2097148 - 1048572) * 1024);
    expect(m.memory.totalBytes).toBe(16384000 * 1024);
    expect(m.cpu).toEqual({
      model: 'Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz',
      vendor: 'Intel',
      sockets: 1,
      cores: 2,
      threads: 4,
      smt: true,
      baseMhz: 2500,
      maxMhz: 3900,
      cacheL1dKiB: 32,
      cacheL2KiB: 1024,
      cacheL3KiB: 35 * 1024,
      family: 6,
      modelNumber: 85,
      stepping: 7,
    });
    expect(m.numa).toEqual({
      nodes: 2,
      clientNode: 0,
      clientCpus: '0-1',
      serverNode: null,
      serverCpus: '0-3',
    });
    expect(m.unknown['numa.serverNode']).toMatch(/NUMA nodes 0,1/);
    expect(m.virtualization).toEqual({
      kind: 'vm+container',
      hypervisor: 'Amazon EC2 (KVM)',
      container: 'docker',
    });
    expect(m.cloud).toEqual({ provider: 'aws', instanceType: 'm5.xlarge' });
    expect(m.mitigations).toEqual({ meltdown: 'Mitigation: PTI', spectre_v2: 'Vulnerable' });
    expect(m.os).toMatchObject({
      platform: 'linux',
      distro: 'Test Linux',
      release: '1.2',
      kernel: '6.1.0-test',
    });
    // systeminformation describes the real machine, so it is not mixed into a crafted root.
    expect(JSON.stringify(m)).not.toMatch(/systeminformation returned/);
  });

  it('finds the server node when the server is pinned to one node', async () => {
    const root = await fakeRoot(intelBox);
    const m = await probeMachine({ root, platform: 'linux', env: {}, serverPid: 4343 });
    expect(m.numa.serverCpus).toBe('3');
    expect(m.numa.serverNode).toBe(1);
  });

  it('reports a missing server process and no pid distinctly', async () => {
    const root = await fakeRoot(intelBox);
    const gone = await probeMachine({ root, platform: 'linux', env: {}, serverPid: 999999 });
    expect(gone.numa.serverCpus).toBeNull();
    expect(gone.unknown['numa.serverCpus']).toMatch(/\/proc\/999999\/status absent: no process 999999/);
    const none = await probeMachine({ root, platform: 'linux', env: {} });
    expect(none.unknown['numa.serverCpus']).toMatch(/no local server process id/);
  });

  it('gives null and the absent file for every /proc and /sys field of an empty root', async () => {
    const root = await fakeRoot({ README: 'nothing here' });
    const m = await probeMachine({ root, platform: 'linux', env: {} });
    expectConsistent(m);
    expect(m.thp).toEqual({ enabled: null, defrag: null });
    expect(m.unknown['thp.enabled']).toBe('file /sys/kernel/mm/transparent_hugepage/enabled absent');
    expect(m.unknown['thp.defrag']).toBe('file /sys/kernel/mm/transparent_hugepage/defrag absent');
    expect(m.cpuGovernor).toBeNull();
    expect(m.unknown.cpuGovernor).toMatch(
      /^file \/sys\/devices\/system\/cpu\/cpu0\/cpufreq\/scaling_governor absent/,
    );
    expect(m.swapTotalBytes).toBeNull();
    expect(m.unknown.swapTotalBytes).toMatch(/\/proc\/meminfo absent/);
    expect(m.numa.nodes).toBeNull();
    expect(m.unknown['numa.nodes']).toBe('directory /sys/devices/system/node absent');
    expect(m.mitigations).toBeNull();
    expect(m.unknown.mitigations).toBe('directory /sys/devices/system/cpu/vulnerabilities absent');
    // No /proc/cpuinfo flags: whether this is a VM cannot be told, and is not guessed.
    expect(m.virtualization.kind).toBeNull();
    expect(m.unknown['virtualization.kind']).toMatch(/cannot tell/);
    expect(m.cpu.model).toBeNull();
    expect(m.unknown['cpu.model']).toMatch(/\/proc\/cpuinfo absent/);
    expect(m.cpu.family).toBeNull();
    expect(m.unknown['cpu.family']).toMatch(/\/proc\/cpuinfo absent/);
  });

  it('calls a machine without the hypervisor flag or container markers bare metal', async () => {
    const root = await fakeRoot({
      'proc/cpuinfo':
        'processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC 7763 64-Core Processor\nstepping\t: 1\nflags\t\t: fpu ht avx2\n',
      'proc/1/cgroup': '0::/init.scope\n',
      'sys/kernel/mm/transparent_hugepage/enabled': 'always madvise [never]\n',
    });
    const m = await probeMachine({ root, platform: 'linux', env: {} });
    expectConsistent(m);
    expect(m.virtualization.kind).toBe('bare-metal');
    expect(m.virtualization.hypervisor).toBeNull();
    expect(m.unknown['virtualization.hypervisor']).toMatch(/^not applicable/);
    expect(m.virtualization.container).toBeNull();
    expect(m.thp.enabled).toBe('never');
    expect(m.cpu.vendor).toBe('AMD');
    // Family, model and stepping as numbers: 'model' is not confused with 'model name'.
    expect([m.cpu.family, m.cpu.modelNumber, m.cpu.stepping]).toEqual([25, 1, 1]);
    expect(m.cpu.baseMhz).toBeNull();
    expect(m.unknown['cpu.baseMhz']).toMatch(/no '@ \.\.\.GHz'.*base_frequency absent/);
  });
});

describe('virtualization and cloud evidence', () => {
  const noDmi: Dmi = {
    sysVendor: null,
    productName: null,
    boardVendor: null,
    chassisAssetTag: null,
    biosVendor: null,
    biosVersion: null,
    reason: 'file /sys/class/dmi/id/sys_vendor absent (no DMI on this machine)',
  };
  const base = {
    cpuFlags: new Set(['fpu']),
    dmi: noDmi,
    hypervisorType: null as string | null,
    clocksources: [] as string[],
    si: null,
    container: null,
    containerCheckable: true,
  };

  it('names hypervisors from DMI, sysfs and clock sources', () => {
    const hv = (e: Partial<typeof base> & Record<string, unknown>) =>
      classifyVirtualization({ ...base, ...e } as never).hypervisor.value;
    const flag = new Set(['hypervisor']);
    expect(
      hv({
        cpuFlags: flag,
        dmi: { ...noDmi, sysVendor: 'QEMU', productName: 'Standard PC (Q35 + ICH9, 2009)', reason: null },
      }),
    ).toBe('QEMU');
    expect(hv({ cpuFlags: flag, dmi: { ...noDmi, sysVendor: 'VMware, Inc.', reason: null } })).toBe('VMware');
    expect(
      hv({
        cpuFlags: flag,
        dmi: { ...noDmi, sysVendor: 'Microsoft Corporation', productName: 'Virtual Machine', reason: null },
      }),
    ).toBe('Microsoft Hyper-V');
    expect(hv({ cpuFlags: flag, hypervisorType: 'xen' })).toBe('Xen');
    expect(hv({ cpuFlags: flag, clocksources: ['kvm-clock', 'tsc'] })).toBe('KVM');
    expect(
      hv({
        cpuFlags: flag,
        dmi: { ...noDmi, sysVendor: 'Google', productName: 'Google Compute Engine', reason: null },
        clocksources: ['kvm-clock'],
      }),
    ).toBe('Google Compute Engine (KVM)');
    // The flag alone: a VM whose hypervisor nobody names.
    const anon = classifyVirtualization({ ...base, cpuFlags: flag });
    expect(anon.kind.value).toBe('vm');
    expect(anon.hypervisor.reason).toMatch(/no DMI string/);
  });

  it('does not call a cloud metal instance a VM', () => {
    const metal = classifyVirtualization({
      ...base,
      dmi: { ...noDmi, sysVendor: 'Amazon EC2', productName: 'm5.metal', reason: null },
    });
    expect(metal.kind.value).toBe('bare-metal');
  });

  it('identifies clouds from DMI', () => {
    const d = (x: Partial<Dmi>): Dmi => ({ ...noDmi, reason: null, ...x });
    expect(detectCloud(d({ sysVendor: 'Amazon EC2', productName: 'c7g.2xlarge' }), null)).toEqual({
      provider: { value: 'aws', reason: null },
      instanceType: { value: 'c7g.2xlarge', reason: null },
    });
    const gce = detectCloud(d({ sysVendor: 'Google', productName: 'Google Compute Engine' }), null);
    expect(gce.provider.value).toBe('gcp');
    expect(gce.instanceType.reason).toMatch(/metadata service/);
    const azure = detectCloud(
      d({
        sysVendor: 'Microsoft Corporation',
        productName: 'Virtual Machine',
        chassisAssetTag: '7783-7084-3265-9085-8269-3286-77',
      }),
      null,
    );
    expect(azure.provider.value).toBe('azure');
    // Hyper-V on premises: same vendor strings, no Azure asset tag.
    expect(
      detectCloud(d({ sysVendor: 'Microsoft Corporation', productName: 'Virtual Machine' }), null).provider
        .value,
    ).toBeNull();
    expect(detectCloud(d({ sysVendor: 'DigitalOcean', productName: 'Droplet' }), null).provider.value).toBe(
      'digitalocean',
    );
    expect(detectCloud(d({ sysVendor: 'Hetzner', productName: 'vServer' }), null).provider.value).toBe(
      'hetzner',
    );
    expect(detectCloud(d({}), 'ec2e1916-9099-7caf-fd21-012345abcdef').provider.value).toBe('aws');
    const dell = detectCloud(d({ sysVendor: 'Dell Inc.', productName: 'PowerEdge R750' }), null);
    expect(dell.provider.reason).toMatch(/"Dell Inc\." .* not a known cloud/);
  });

  it('detects containers from markers, cgroups and the environment', async () => {
    const empty = await fakeRoot({});
    expect(detectContainer(empty, {})).toBeNull();
    expect(detectContainer(empty, { container: 'systemd-nspawn' })?.name).toBe('systemd-nspawn');
    expect(detectContainer(empty, { KUBERNETES_SERVICE_HOST: '10.0.0.1' })?.name).toBe('kubernetes');
    const podman = await fakeRoot({ 'run/.containerenv': 'engine="podman-4.9.3"\n' });
    expect(detectContainer(podman, {})?.name).toBe('podman');
    const k8s = await fakeRoot({ 'proc/1/cgroup': '0::/kubepods/besteffort/pod123/abc\n' });
    expect(detectContainer(k8s, {})?.name).toBe('kubernetes');
    const docker = await fakeRoot({ 'proc/1/cgroup': '12:cpu:/docker/0123456789abcdef\n' });
    expect(detectContainer(docker, {})?.name).toBe('docker');
    const lxc = await fakeRoot({ 'proc/1/cgroup': '0::/lxc.payload.web/init.scope\n' });
    expect(detectContainer(lxc, {})?.name).toBe('lxc');
  });
});
