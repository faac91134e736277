// valid/suite-run.json and the suite workload and saturation shapes the other examples start from.
import { cell, environment, round, trial } from './measure.mjs';

// --- valid/suite-run.json: standard-v1 quick, two cells x three trials, Linux bare metal --------

const linuxClient = {
  cpu: {
    model: 'Intel(R) Xeon(R) E-2388G CPU @ 3.20GHz',
    vendor: 'GenuineIntel',
    sockets: 1,
    cores: 8,
    threads: 16,
    smt: true,
    baseMhz: 3200,
    maxMhz: 5100,
    cacheL1dKiB: 48,
    cacheL2KiB: 512,
    cacheL3KiB: 16384,
  },
  numa: { nodes: 1, clientNode: 0, clientCpus: '0-15', serverNode: 0, serverCpus: '0-15' },
  memory: { totalBytes: 67234508800 },
  virtualization: { kind: 'bare-metal', hypervisor: null, container: null },
  cloud: { provider: null, instanceType: null },
  os: {
    platform: 'linux',
    distro: 'Ubuntu',
    release: '24.04.1 LTS',
    kernel: '6.8.0-45-generic',
    arch: 'x64',
  },
  thp: { enabled: 'madvise', defrag: 'madvise' },
  cpuGovernor: 'performance',
  swapTotalBytes: 8589930496,
  swapUsedBytes: 0,
  mitigations: {
    meltdown: 'Not affected',
    spectre_v1: 'Mitigation: usercopy/swapgs barriers and __user pointer sanitization',
    spectre_v2:
      'Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence',
    mds: 'Not affected',
  },
  unknown: {
    'cloud.provider': 'no cloud metadata service answered (not a cloud instance?)',
    'cloud.instanceType': 'no cloud metadata service answered (not a cloud instance?)',
  },
};

const redisServer = {
  product: 'redis',
  version: '7.4.1',
  gitSha: '00000000',
  buildId: '7a7a1e5b5b4c2f3e',
  mode: 'standalone',
  archBits: 64,
  allocator: 'jemalloc-5.3.0',
  ioThreads: 1,
  ioThreadsDoReads: false,
  persistence: { save: '', appendonly: false, appendfsync: 'everysec' },
  maxmemoryBytes: 0,
  maxmemoryPolicy: 'noeviction',
  multiplexingApi: 'epoll',
  os: 'Linux 6.8.0-45-generic x86_64',
  loglevel: 'notice',
  connectedClients: 1,
  monitorClients: 0,
  local: true,
  unknown: {},
};

export const suiteWorkload = (test) => ({
  test,
  command: null,
  setGetRatio: null,
  connections: 50,
  pipelineDepth: 1,
  pipelineMode: 'batch',
  valueSizeBytes: { min: 256, max: 256 },
  keyspaceSize: 1000000,
  keyPattern: 'uniform',
  zipfExponent: 0.99,
  seed: 1,
  requests: null,
  durationSec: 2,
  warmupSec: 0.5,
  rateOpsPerSec: null,
  arrival: 'constant',
  threads: 1,
  preload: true,
});

export const serverBound = (elu, share) => ({
  clientEventLoopUtilization: [elu],
  serverCpuShare: share,
  serverMainThreadCpuShare: round(share - 0.012, 3),
  achievedRateRatio: null,
  limitedBy: 'server',
  clientBound: false,
});

const suiteTrial = (seed, test, opsPerSec, medianUs, saturation) =>
  trial({
    seed,
    opsPerSec,
    durationSec: 2,
    warmupSec: 0.5,
    medianUs,
    sigma: 0.18,
    requested: null,
    requestBytes: test === 'SET' ? 303 : 40,
    replyBytes: test === 'SET' ? 5 : 263,
    hitRatio: test === 'GET' ? 1 : null,
    saturation,
    commands: [test.toLowerCase()],
  });

export const suiteRun = {
  schema: 'redis-benchdb/result.v1',
  runner: {
    name: 'redis-benchdb',
    version: '0.1.0',
    nodeVersion: 'v20.19.0',
    engineMode: 'lean-resp',
    threads: 1,
  },
  suite: { id: 'standard-v1', version: 1, profile: 'quick' },
  startedAt: '2025-03-04T10:15:02.113Z',
  finishedAt: '2025-03-04T10:15:21.874Z',
  target: { host: '127.0.0.1', port: 6379, socket: null, tls: false, db: 0, resp3: false },
  keyPrefix: 'rbdb:3f9c1a:',
  environment: environment(
    linuxClient,
    redisServer,
    {
      kind: 'tcp-loopback',
      sameHost: true,
      rttUs: { p50Us: 23, p99Us: 41, samples: 2000 },
      intrinsicLatencyUs: { maxUs: 38, avgUs: 0.041, durationMs: 1000 },
    },
    {},
  ),
  warnings: [
    {
      code: 'SAME_HOST',
      message: 'the server runs on this machine: client and server share its 16 CPUs',
      cell: null,
    },
  ],
  cells: [
    cell('SET', 'SET', suiteWorkload('SET'), [
      suiteTrial(101, 'SET', 112340.5, 431, serverBound(0.71, 0.982)),
      suiteTrial(102, 'SET', 109876.25, 442, serverBound(0.7, 0.979)),
      suiteTrial(103, 'SET', 113012.5, 428, serverBound(0.72, 0.985)),
    ]),
    cell('GET', 'GET', suiteWorkload('GET'), [
      suiteTrial(201, 'GET', 131204, 371, serverBound(0.74, 0.977)),
      suiteTrial(202, 'GET', 129950.5, 375, serverBound(0.73, 0.975)),
      suiteTrial(203, 'GET', 132411, 368, serverBound(0.75, 0.981)),
    ]),
  ],
  interrupted: false,
  incomplete: false,
  error: null,
  cleanup: { removedKeys: 1000000, error: null },
};
