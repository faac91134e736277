// The synthetic fleet: ~200 client machines, the servers they ran and how they reached them.
// Every CPU model starts with "SYNTHETIC " so that no page, export or query can pass one off as a
// measurement. `perf` is single-thread speed relative to this project's 2-vCPU EPYC dev VM.

import { rng } from './random.mjs';

const GiB = 1024 ** 3;

// [model, vendor, arch, perf, baseMhz, maxMhz, L1d, L2, L3 KiB, core counts, smt]
const CPUS = [
  [
    'Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz',
    'GenuineIntel',
    'x64',
    1.0,
    2900,
    3500,
    48,
    1280,
    55296,
    [2, 4, 8, 16, 32],
    true,
  ],
  [
    'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz',
    'GenuineIntel',
    'x64',
    0.9,
    2000,
    3200,
    48,
    1280,
    49152,
    [4, 8, 32],
    true,
  ],
  [
    'Intel(R) Xeon(R) E-2388G CPU @ 3.20GHz',
    'GenuineIntel',
    'x64',
    1.35,
    3200,
    5100,
    48,
    512,
    16384,
    [8],
    true,
  ],
  [
    '13th Gen Intel(R) Core(TM) i9-13900K',
    'GenuineIntel',
    'x64',
    1.7,
    3000,
    5800,
    48,
    2048,
    36864,
    [24],
    true,
  ],
  [
    '12th Gen Intel(R) Core(TM) i7-12700',
    'GenuineIntel',
    'x64',
    1.45,
    2100,
    4900,
    48,
    1280,
    25600,
    [12],
    true,
  ],
  [
    'Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz',
    'GenuineIntel',
    'x64',
    0.7,
    2400,
    3300,
    32,
    256,
    35840,
    [2, 4, 14],
    true,
  ],
  [
    'AMD EPYC 7763 64-Core Processor',
    'AuthenticAMD',
    'x64',
    1.05,
    2450,
    3500,
    32,
    512,
    262144,
    [2, 4, 8, 16, 64],
    true,
  ],
  [
    'AMD EPYC 9654 96-Core Processor',
    'AuthenticAMD',
    'x64',
    1.3,
    2400,
    3700,
    32,
    1024,
    393216,
    [4, 8, 16, 96],
    true,
  ],
  ['AMD EPYC 7R13 Processor', 'AuthenticAMD', 'x64', 1.0, 2650, 3600, 32, 512, 131072, [2, 4, 8, 16], true],
  [
    'AMD Ryzen 9 7950X 16-Core Processor',
    'AuthenticAMD',
    'x64',
    1.8,
    4500,
    5700,
    32,
    1024,
    65536,
    [16],
    true,
  ],
  ['AMD Ryzen 7 5800X 8-Core Processor', 'AuthenticAMD', 'x64', 1.5, 3800, 4700, 32, 512, 32768, [8], true],
  [
    'Neoverse-V1 (AWS Graviton3)',
    'ARM',
    'arm64',
    0.95,
    2600,
    2600,
    64,
    1024,
    32768,
    [2, 4, 8, 16, 64],
    false,
  ],
  ['Ampere(R) Altra(R) Q80-30', 'ARM', 'arm64', 0.8, 3000, 3000, 64, 1024, 32768, [4, 8, 80], false],
  ['Apple M2 Pro', 'Apple', 'arm64', 1.75, null, 3504, 128, 4096, null, [10, 12], false],
];

const HYPERVISORS = [
  ['KVM', 5],
  ['Amazon EC2 (KVM)', 4],
  ['Google Compute Engine (KVM)', 2],
  ['Microsoft Hyper-V', 2],
  ['Xen', 1],
  ['VMware', 1],
];
const LINUX = [
  ['Ubuntu', '24.04.1 LTS', '6.8.0-45-generic'],
  ['Ubuntu', '22.04.4 LTS', '5.15.0-119-generic'],
  ['Debian GNU/Linux', '12 (bookworm)', '6.1.0-25-amd64'],
  ['Fedora Linux', '40 (Server Edition)', '6.10.6-200.fc40.x86_64'],
  ['Amazon Linux', '2023', '6.1.109-118.189.amzn2023.x86_64'],
];
const MITIGATIONS = {
  meltdown: 'Not affected',
  spectre_v1: 'Mitigation: usercopy/swapgs barriers and __user pointer sanitization',
  spectre_v2: 'Mitigation: Enhanced / Automatic IBRS',
};

/** The fleet for a seed: the same seed, the same machines, in every worker. */
export function fleet(seed, size = 200) {
  const r = rng(seed ^ 0x5eed);
  return Array.from({ length: size }, () => machine(r));
}

function machine(r) {
  const [model, vendor, arch, perf, baseMhz, maxMhz, l1, l2, l3, coreChoices, smtCapable] = r.pick(CPUS);
  const darwin = vendor === 'Apple';
  const kind = darwin
    ? 'bare-metal'
    : r.weighted([
        ['bare-metal', 35],
        ['vm', 45],
        ['vm+container', 10],
        ['container', 10],
      ]);
  const vm = kind === 'vm' || kind === 'vm+container';
  const cores = vm ? (r.pick(coreChoices.filter((c) => c <= 32)) ?? coreChoices[0]) : r.pick(coreChoices);
  const smt = smtCapable && (!vm || r.next() < 0.6);
  const [distro, release, kernel] = darwin ? ['macOS', '14.5', '23.5.0'] : r.pick(LINUX);
  const hypervisor = vm ? r.weighted(HYPERVISORS) : null;
  const cloud = hypervisor?.startsWith('Amazon')
    ? 'aws'
    : hypervisor?.startsWith('Google')
      ? 'gcp'
      : hypervisor === 'Microsoft Hyper-V'
        ? 'azure'
        : null;
  const container = kind.endsWith('container')
    ? r.weighted([
        ['docker', 3],
        ['kubernetes', 1],
        ['podman', 1],
      ])
    : null;
  const unknown = {};
  if (!cloud) {
    unknown['cloud.provider'] = 'no cloud metadata service answered (not a cloud instance?)';
    unknown['cloud.instanceType'] = 'no cloud metadata service answered (not a cloud instance?)';
  }
  if (!hypervisor)
    unknown['virtualization.hypervisor'] =
      'not applicable: not a virtual machine (no hypervisor CPU flag or DMI/sysfs hint)';
  if (!container)
    unknown['virtualization.container'] = 'not applicable: no container marker, variable or cgroup';
  if (darwin) {
    for (const k of ['numa.nodes', 'thp.enabled', 'thp.defrag', 'cpuGovernor'])
      unknown[k] = 'not applicable on macOS';
    unknown['cpu.baseMhz'] = 'macOS does not report a base clock for Apple silicon';
    unknown['cpu.cacheL3KiB'] = 'macOS does not report an L3 cache for Apple silicon';
  }
  const thp = darwin
    ? null
    : r.weighted([
        ['madvise', 6],
        ['always', 2],
        ['never', 2],
      ]);
  const governor =
    darwin || vm
      ? null
      : r.weighted([
          ['performance', 5],
          ['schedutil', 3],
          ['powersave', 2],
        ]);
  if (!darwin && !governor) unknown.cpuGovernor = 'no cpufreq driver (typical in a VM)';
  const client = {
    cpu: {
      model: `SYNTHETIC ${model}`,
      vendor,
      sockets: 1,
      cores,
      threads: smt ? cores * 2 : cores,
      smt,
      baseMhz,
      maxMhz,
      cacheL1dKiB: l1,
      cacheL2KiB: l2,
      cacheL3KiB: l3,
    },
    numa: darwin
      ? { nodes: null, clientNode: null, clientCpus: null, serverNode: null, serverCpus: null }
      : {
          nodes: 1,
          clientNode: 0,
          clientCpus: `0-${(smt ? cores * 2 : cores) - 1}`,
          serverNode: 0,
          serverCpus: `0-${(smt ? cores * 2 : cores) - 1}`,
        },
    memory: { totalBytes: cores * r.pick([2, 4, 8]) * GiB },
    virtualization: { kind, hypervisor, container },
    cloud: { provider: cloud, instanceType: cloud ? `synthetic.${cores}x` : null },
    os: { platform: darwin ? 'darwin' : 'linux', distro, release, kernel, arch },
    thp: { enabled: thp, defrag: thp ? 'madvise' : null },
    cpuGovernor: governor,
    swapTotalBytes: r.pick([0, 2 * GiB, 8 * GiB]),
    swapUsedBytes: 0,
    mitigations: darwin ? null : MITIGATIONS,
    unknown,
  };
  if (!darwin && r.next() < 0.04) client.swapUsedBytes = r.int(1, 400) * 1024 * 1024;
  if (client.swapUsedBytes > client.swapTotalBytes) client.swapTotalBytes = 8 * GiB;
  // A VM's clock and neighbours cost speed and steadiness; a container costs a little of both.
  const speed = perf * (vm ? 0.88 : 1) * (container ? 0.97 : 1) * (0.92 + 0.16 * r.next());
  const jitter = (vm ? 0.035 : 0.012) * (cores <= 2 ? 2 : 1) * (container ? 1.3 : 1);
  return { client, speed, jitter, cores, vm, darwin };
}
