// Regenerates the checked-in examples: valid/*.json (realistic result documents whose histograms,
// latency summaries, trial statistics and fingerprints are computed by packages/result, from
// seeded pseudo-random latencies), the signed envelope (make-envelope.mjs), and invalid/*.json,
// each one valid document with exactly one defect, listed in invalid/EXPECTED.json with the JSON
// path its validation error must name.
// `npx tsc -b packages/result/tsconfig.json && node schemas/examples/make-examples.mjs`
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import {
  createLatencyHistogram,
  encodeHistogram,
  environmentFingerprint,
  isUnstable,
  mergeEncodedHistograms,
  summarizeHistogram,
  summarizeTrials,
  validateEnvelope,
  validateResult,
  workloadFingerprint,
} from '../../packages/result/dist/index.js';
import { ENVELOPE_FILE, makeEnvelope } from './make-envelope.mjs';

const here = (p) => new URL(p, import.meta.url);

/** mulberry32: small, seeded, good enough to draw example latencies. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A latency histogram of `count` log-normal draws around `medianUs`, with a rare slow tail. */
function latencyHistogram(seed, count, medianUs, sigma, tailEvery = 5000, tailUs = 4000) {
  const rand = rng(seed);
  const h = createLatencyHistogram();
  for (let i = 0; i < count; i++) {
    const u1 = rand() || 1e-12;
    const g = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rand());
    let v = medianUs * Math.exp(sigma * g);
    if (i % tailEvery === tailEvery - 1) v += tailUs * rand();
    h.recordValue(Math.max(1, Math.round(v)));
  }
  const encoded = encodeHistogram(h);
  const summary = summarizeHistogram(h);
  h.destroy();
  return { encoded, summary };
}

const round = (x, digits) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * A trial: `opsPerSec` over `durationSec`, latencies around `medianUs`. Open loop adds a response
 * time (from the intended send), a little above the service latency.
 */
function trial(t) {
  // A cell with a request count completes exactly that many; one with a duration, what the rate allows.
  const completed = t.requested ?? Math.round(t.opsPerSec * t.durationSec);
  const lat = latencyHistogram(t.seed, completed, t.medianUs, t.sigma, t.tailEvery);
  const resp = t.openLoop
    ? latencyHistogram(t.seed + 1, completed, t.medianUs * 1.15, t.sigma * 1.2, 2000, 9000)
    : null;
  const warmupCompleted = Math.round(t.opsPerSec * t.warmupSec);
  return {
    opsPerSec: round(completed / t.durationSec, 2),
    durationSec: t.durationSec,
    completed,
    requested: t.requested,
    bytesIn: completed * t.replyBytes,
    bytesOut: completed * t.requestBytes,
    errors: t.errors ?? {},
    nils: t.nils ?? 0,
    hitRatio: t.hitRatio,
    latencyUs: lat.summary,
    histogram: lat.encoded,
    responseTimeUs: resp ? resp.summary : null,
    responseHistogram: resp ? resp.encoded : null,
    saturation: t.saturation,
    crossCheck: {
      status: 'match',
      expected: completed + warmupCompleted,
      observed: completed + warmupCompleted,
      commands: t.commands,
    },
    incomplete: false,
    error: null,
  };
}

/** A cell from its workload and trials: merged histograms, trial statistics, fingerprint. */
function cell(label, test, workload, trials) {
  const merged = mergeEncodedHistograms(trials.map((t) => t.histogram));
  const openLoop = trials[0].responseHistogram !== null;
  const mergedResp = openLoop ? mergeEncodedHistograms(trials.map((t) => t.responseHistogram)) : null;
  const stats = summarizeTrials(trials.map((t) => t.opsPerSec));
  const sum = (f) => trials.reduce((a, t) => a + f(t), 0);
  const errors = {};
  for (const t of trials) for (const [k, v] of Object.entries(t.errors)) errors[k] = (errors[k] ?? 0) + v;
  const completed = sum((t) => t.completed);
  const nils = sum((t) => t.nils);
  const out = {
    label,
    test,
    workloadFingerprint: workloadFingerprint(workload),
    workload,
    trialCount: trials.length,
    opsPerSec: { median: stats.median, ci95Low: stats.ci95Low, ci95High: stats.ci95High, cv: stats.cv },
    unstable: isUnstable(stats.cv),
    trials,
    latencyUs: summarizeHistogram(merged),
    histogram: encodeHistogram(merged),
    responseTimeUs: mergedResp ? summarizeHistogram(mergedResp) : null,
    responseHistogram: mergedResp ? encodeHistogram(mergedResp) : null,
    completed,
    requested: trials[0].requested === null ? null : sum((t) => t.requested),
    bytesIn: sum((t) => t.bytesIn),
    bytesOut: sum((t) => t.bytesOut),
    errors,
    hitRatio: trials[0].hitRatio === null ? null : round((completed - nils) / completed, 6),
    saturation: trials[Math.floor(trials.length / 2)].saturation,
    crossCheck: {
      status: 'match',
      expected: sum((t) => t.crossCheck.expected),
      observed: sum((t) => t.crossCheck.observed),
      commands: trials[0].crossCheck.commands,
    },
    incomplete: false,
    error: null,
  };
  merged.destroy();
  mergedResp?.destroy();
  return out;
}

function environment(client, server, link, unknown) {
  return { fingerprint: environmentFingerprint({ client, server, link }), client, server, link, unknown };
}

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

const suiteWorkload = (test) => ({
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

const serverBound = (elu, share) => ({
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

const suiteRun = {
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

// --- valid/adhoc-open-loop-macos.json: ad hoc, open loop + a custom command, macOS, many nulls ---

const macClient = {
  cpu: {
    model: 'Apple M2 Pro',
    vendor: 'Apple',
    sockets: 1,
    cores: 12,
    threads: 12,
    smt: false,
    baseMhz: null,
    maxMhz: null,
    cacheL1dKiB: 64,
    cacheL2KiB: null,
    cacheL3KiB: null,
  },
  numa: { nodes: null, clientNode: null, clientCpus: null, serverNode: null, serverCpus: null },
  memory: { totalBytes: 34359738368 },
  virtualization: { kind: 'bare-metal', hypervisor: null, container: null },
  cloud: { provider: null, instanceType: null },
  os: { platform: 'darwin', distro: 'macOS', release: '14.6.1', kernel: '23.6.0', arch: 'arm64' },
  thp: { enabled: null, defrag: null },
  cpuGovernor: null,
  swapTotalBytes: 2147483648,
  swapUsedBytes: 1048576000,
  mitigations: null,
  unknown: {
    'cpu.baseMhz': 'macOS does not report CPU frequencies on Apple silicon',
    'cpu.maxMhz': 'macOS does not report CPU frequencies on Apple silicon',
    'cpu.cacheL2KiB': 'Apple silicon shares L2 per cluster; sysctl reports no per-core size',
    'cpu.cacheL3KiB': 'Apple silicon has no L3 cache sysctl',
    'numa.nodes': 'no NUMA information on macOS',
    'numa.clientNode': 'no NUMA information on macOS',
    'numa.clientCpus': 'macOS has no CPU affinity API',
    'numa.serverNode': 'no NUMA information on macOS',
    'numa.serverCpus': 'macOS has no CPU affinity API',
    'cloud.provider': 'no cloud metadata service answered (not a cloud instance?)',
    'cloud.instanceType': 'no cloud metadata service answered (not a cloud instance?)',
    'thp.enabled': 'transparent huge pages are a Linux feature',
    'thp.defrag': 'transparent huge pages are a Linux feature',
    cpuGovernor: 'CPU frequency governors are a Linux feature',
    mitigations: 'CPU vulnerability status is read from Linux sysfs',
  },
};

const valkeyServer = {
  product: 'valkey',
  version: '8.0.1',
  gitSha: '00000000',
  buildId: 'c5a1e6f2d0b3a4e9',
  mode: 'standalone',
  archBits: 64,
  allocator: 'libc',
  ioThreads: 1,
  ioThreadsDoReads: null,
  persistence: { save: '3600 1 300 100 60 10000', appendonly: false, appendfsync: 'everysec' },
  maxmemoryBytes: 0,
  maxmemoryPolicy: 'noeviction',
  multiplexingApi: 'kqueue',
  os: 'Darwin 23.6.0 arm64',
  loglevel: 'notice',
  connectedClients: 1,
  monitorClients: 0,
  local: true,
  unknown: { ioThreadsDoReads: 'valkey 8 has no io-threads-do-reads setting' },
};

const openLoopWorkload = {
  test: 'GET',
  command: null,
  setGetRatio: null,
  connections: 20,
  pipelineDepth: 1,
  pipelineMode: 'batch',
  valueSizeBytes: { min: 64, max: 1024 },
  keyspaceSize: 100000,
  keyPattern: 'zipf',
  zipfExponent: 0.99,
  seed: 42,
  requests: null,
  durationSec: 10,
  warmupSec: 1,
  rateOpsPerSec: 50000,
  arrival: 'poisson',
  threads: 2,
  preload: true,
};

const customWorkload = {
  test: 'CUSTOM',
  command: ['HSET', '__key__', 'field', '__data__'],
  setGetRatio: null,
  connections: 50,
  pipelineDepth: 8,
  pipelineMode: 'window',
  valueSizeBytes: { min: 32, max: 32 },
  keyspaceSize: 10000,
  keyPattern: 'uniform',
  zipfExponent: 0.99,
  seed: 42,
  requests: 200000,
  durationSec: null,
  warmupSec: 0,
  rateOpsPerSec: null,
  arrival: 'constant',
  threads: 2,
  preload: false,
};

const adhoc = {
  schema: 'redis-benchdb/result.v1',
  runner: {
    name: 'redis-benchdb',
    version: '0.1.0',
    nodeVersion: 'v22.11.0',
    engineMode: 'lean-resp',
    threads: 2,
  },
  suite: null,
  startedAt: '2025-03-05T21:40:11.502+01:00',
  finishedAt: '2025-03-05T21:40:27.045+01:00',
  target: { host: '127.0.0.1', port: 6379, socket: '/tmp/valkey.sock', tls: false, db: 0, resp3: true },
  keyPrefix: 'rbdb:a04be7:',
  environment: environment(
    macClient,
    valkeyServer,
    {
      kind: 'unix',
      sameHost: true,
      rttUs: { p50Us: 17, p99Us: 52, samples: 2000 },
      intrinsicLatencyUs: null,
    },
    {
      'link.intrinsicLatencyUs':
        'skipped: the measurement loop needs a dedicated core (--no-intrinsic-latency)',
    },
  ),
  warnings: [
    {
      code: 'SAME_HOST',
      message: 'the server runs on this machine: client and server share its 12 CPUs',
      cell: null,
    },
    {
      code: 'SWAP_IN_USE',
      message: '1000 MiB of swap in use: a page fault costs more than a request',
      cell: null,
    },
    {
      code: 'PERSISTENCE_ON',
      message:
        'RDB snapshots are on (save "3600 1 300 100 60 10000"): a fork during a cell shows as a latency spike',
      cell: null,
    },
  ],
  cells: [
    cell('GET rate=50000 poisson', 'GET', openLoopWorkload, [
      trial({
        seed: 301,
        opsPerSec: 49893.1,
        durationSec: 10,
        warmupSec: 1,
        medianUs: 96,
        sigma: 0.35,
        openLoop: true,
        requested: null,
        requestBytes: 40,
        replyBytes: 553,
        hitRatio: 1,
        saturation: {
          clientEventLoopUtilization: [0.412, 0.398],
          serverCpuShare: 0.523,
          serverMainThreadCpuShare: null,
          achievedRateRatio: 0.998,
          limitedBy: 'neither',
          clientBound: false,
        },
        commands: ['get'],
      }),
    ]),
    cell('HSET __key__ field __data__', 'HSET __key__ field __data__', customWorkload, [
      trial({
        seed: 401,
        opsPerSec: 412345.6,
        durationSec: 0.485031,
        warmupSec: 0,
        medianUs: 880,
        sigma: 0.25,
        requested: 200000,
        requestBytes: 76,
        replyBytes: 4,
        hitRatio: null,
        saturation: {
          clientEventLoopUtilization: [0.934, 0.921],
          serverCpuShare: 0.871,
          serverMainThreadCpuShare: null,
          achievedRateRatio: null,
          limitedBy: 'client',
          clientBound: true,
        },
        commands: ['hset'],
      }),
      trial({
        seed: 402,
        opsPerSec: 398870.2,
        durationSec: 0.501416,
        warmupSec: 0,
        medianUs: 905,
        sigma: 0.25,
        requested: 200000,
        requestBytes: 76,
        replyBytes: 4,
        hitRatio: null,
        saturation: {
          clientEventLoopUtilization: [0.941, 0.93],
          serverCpuShare: 0.858,
          serverMainThreadCpuShare: null,
          achievedRateRatio: null,
          limitedBy: 'client',
          clientBound: true,
        },
        commands: ['hset'],
      }),
    ]),
  ],
  interrupted: false,
  incomplete: false,
  error: null,
  cleanup: { removedKeys: 20000, error: null },
};
adhoc.warnings.push({
  code: 'CLIENT_BOUND',
  message: 'the client was the busy side (event loops at 93%): the server could go faster than measured',
  cell: adhoc.cells[1].label,
});

// --- valid/minimal.json: the smallest real run (`-t set -n 2000 -c 1`), the base of most invalid/ --

const minimal = {
  ...structuredClone(suiteRun),
  suite: null,
  startedAt: '2025-03-04T11:02:40.006Z',
  finishedAt: '2025-03-04T11:02:40.391Z',
  keyPrefix: 'rbdb:0b51e2:',
  cells: [
    cell(
      'SET',
      'SET',
      {
        ...suiteWorkload('SET'),
        connections: 1,
        valueSizeBytes: { min: 3, max: 3 },
        keyspaceSize: 1,
        requests: 2000,
        durationSec: null,
        warmupSec: 0,
        preload: false,
      },
      [
        trial({
          seed: 501,
          opsPerSec: 38461.5,
          durationSec: 0.052,
          warmupSec: 0,
          medianUs: 25,
          sigma: 0.08,
          tailEvery: 1000,
          requested: 2000,
          requestBytes: 48,
          replyBytes: 5,
          hitRatio: null,
          saturation: {
            clientEventLoopUtilization: [0.264],
            serverCpuShare: 0.31,
            serverMainThreadCpuShare: 0.298,
            achievedRateRatio: null,
            limitedBy: 'neither',
            clientBound: false,
          },
          commands: ['set'],
        }),
      ],
    ),
  ],
  cleanup: { removedKeys: 1, error: null },
};

// --- valid/run-group-member.json: one of the results of `run --server-bin redis-server --transport tcp,unix` --

const runGroupMember = {
  ...structuredClone(minimal),
  target: { ...minimal.target, port: 0, socket: '/tmp/redis-benchdb-server-Xk3v9a/redis.sock' },
  environment: {
    ...structuredClone(minimal.environment),
    link: { ...minimal.environment.link, kind: 'unix' },
  },
  runGroup: {
    id: '9f2c41d07a3be865',
    index: 1,
    size: 2,
    label: 'redis-server 7.4.1 · unix',
    varies: ['transport'],
  },
};
runGroupMember.environment.fingerprint = environmentFingerprint(runGroupMember.environment);

// --- valid/cluster-run.json: `run --cluster -p 7000 -t set -n 100000 -r 100000` on 3 primaries + 3 replicas --

const clusterIds = ['0a3f', '5be1', '9c27', 'd410', 'e8a2', 'f6c9'].map((p) => p.padEnd(40, '7'));
const clusterRanges = [
  [0, 5460],
  [5461, 10922],
  [10923, 16383],
];
const clusterRun = {
  ...structuredClone(minimal),
  startedAt: '2025-03-05T09:30:11.402Z',
  finishedAt: '2025-03-05T09:30:14.977Z',
  keyPrefix: 'rbdb:c1a57e:',
  target: {
    ...minimal.target,
    port: 7000,
    cluster: {
      discoveredBy: 'CLUSTER SHARDS',
      slotsCovered: 16384,
      nodes: clusterIds.map((id, i) => ({
        id,
        role: i < 3 ? 'primary' : 'replica',
        host: '127.0.0.1',
        port: 7000 + i,
        primaryId: i < 3 ? null : clusterIds[i - 3],
        slotRanges: 1,
        slots: clusterRanges[i % 3][1] - clusterRanges[i % 3][0] + 1,
        version: '7.4.1',
        health: 'online',
      })),
    },
  },
  environment: {
    ...structuredClone(minimal.environment),
    server: { ...minimal.environment.server, mode: 'cluster' },
  },
  cells: [
    cell(
      'SET',
      'SET',
      {
        ...suiteWorkload('SET'),
        valueSizeBytes: { min: 3, max: 3 },
        keyspaceSize: 100000,
        requests: 100000,
        durationSec: null,
        warmupSec: 0,
        preload: false,
      },
      [
        trial({
          seed: 601,
          opsPerSec: 141243.2,
          durationSec: 0.708,
          warmupSec: 0,
          medianUs: 318,
          sigma: 0.2,
          requested: 100000,
          requestBytes: 57,
          replyBytes: 5,
          hitRatio: null,
          saturation: serverBound(0.86, 0.93),
          commands: ['set'],
        }),
      ],
    ),
  ],
  cleanup: { removedKeys: 63212, error: null },
};
clusterRun.environment.fingerprint = environmentFingerprint(clusterRun.environment);
// A slot moved during the run: the redirected requests were counted by the server once more each.
for (const c of clusterRun.cells) {
  for (const t of c.trials) {
    t.redirects = { moved: 2, ask: 37 };
    t.crossCheck.expected += 39;
    t.crossCheck.observed += 39;
  }
  c.redirects = { moved: 2, ask: 37 };
  c.crossCheck.expected += 39;
  c.crossCheck.observed += 39;
}

// --- invalid/: one defect each --------------------------------------------------------------------

/** Each: file, the valid document it starts from, the path its error must name, the change. */
const DEFECTS = [
  ['missing-runner-version.json', minimal, '/runner/version', (d) => delete d.runner.version],
  ['unknown-schema-version.json', minimal, '/schema', (d) => (d.schema = 'redis-benchdb/result.v2')],
  ['wrong-schema-const.json', minimal, '/schema', (d) => (d.schema = 'redis-benchmark/result.v1')],
  [
    'negative-ops-median.json',
    minimal,
    '/cells/0/opsPerSec/median',
    (d) => (d.cells[0].opsPerSec.median *= -1),
  ],
  ['string-for-integer.json', minimal, '/cells/0/completed', (d) => (d.cells[0].completed = '2000')],
  ['fractional-integer.json', minimal, '/cells/0/trials/0/nils', (d) => (d.cells[0].trials[0].nils = 0.5)],
  [
    'null-trial-ops.json',
    minimal,
    '/cells/0/trials/0/opsPerSec',
    (d) => (d.cells[0].trials[0].opsPerSec = null),
  ],
  ['extra-top-level-field.json', minimal, '/hostname', (d) => (d.hostname = 'bench-01.example.net')],
  ['bad-key-prefix.json', minimal, '/keyPrefix', (d) => (d.keyPrefix = 'bench:')],
  ['bad-started-at.json', minimal, '/startedAt', (d) => (d.startedAt = '2025-03-04 11:02:40')],
  [
    'bad-workload-fingerprint.json',
    minimal,
    '/cells/0/workloadFingerprint',
    (d) => (d.cells[0].workloadFingerprint = d.cells[0].workloadFingerprint.toUpperCase()),
  ],
  [
    'bad-environment-fingerprint.json',
    minimal,
    '/environment/fingerprint',
    (d) => (d.environment.fingerprint = d.environment.fingerprint.replace('sha256:', 'md5:')),
  ],
  [
    'bad-pipeline-mode.json',
    minimal,
    '/cells/0/workload/pipelineMode',
    (d) => (d.cells[0].workload.pipelineMode = 'pipelined'),
  ],
  [
    'value-size-missing-max.json',
    minimal,
    '/cells/0/workload/valueSizeBytes/max',
    (d) => delete d.cells[0].workload.valueSizeBytes.max,
  ],
  [
    'value-size-as-number.json',
    minimal,
    '/cells/0/workload/valueSizeBytes',
    (d) => (d.cells[0].workload.valueSizeBytes = 3),
  ],
  [
    'set-get-ratio-three-items.json',
    minimal,
    '/cells/0/workload/setGetRatio',
    (d) => (d.cells[0].workload.setGetRatio = [1, 10, 2]),
  ],
  ['unknown-warning-code.json', minimal, '/warnings/0/code', (d) => (d.warnings[0].code = 'NOISY_NEIGHBOUR')],
  ['hit-ratio-above-one.json', minimal, '/cells/0/hitRatio', (d) => (d.cells[0].hitRatio = 1.2)],
  [
    'histogram-not-base64.json',
    minimal,
    '/cells/0/trials/0/histogram',
    (d) => (d.cells[0].trials[0].histogram = 'HISTFAAAA?not base64'),
  ],
  [
    'thp-bad-enum.json',
    minimal,
    '/environment/client/thp/enabled',
    (d) => (d.environment.client.thp.enabled = '[madvise]'),
  ],
  ['zero-trials.json', minimal, '/cells/0/trials', (d) => (d.cells[0].trials = [])],
  ['cell-missing-crosscheck.json', minimal, '/cells/0/crossCheck', (d) => delete d.cells[0].crossCheck],
  [
    'extra-field-in-response-time.json',
    adhoc,
    '/cells/0/responseTimeUs/p99_9Us',
    (d) => (d.cells[0].responseTimeUs.p99_9Us = d.cells[0].responseTimeUs.p999Us),
  ],
  ['run-group-bad-id.json', runGroupMember, '/runGroup/id', (d) => (d.runGroup.id = 'group-1')],
  ['run-group-missing-label.json', runGroupMember, '/runGroup/label', (d) => delete d.runGroup.label],
  [
    'cluster-node-role-master.json',
    clusterRun,
    '/target/cluster/nodes/0/role',
    (d) => (d.target.cluster.nodes[0].role = 'master'),
  ],
  [
    'redirects-missing-ask.json',
    clusterRun,
    '/cells/0/redirects/ask',
    (d) => delete d.cells[0].redirects.ask,
  ],
  [
    'unknown-reason-not-string.json',
    adhoc,
    '/environment/client/unknown/cpu.maxMhz',
    (d) => (d.environment.client.unknown['cpu.maxMhz'] = 0),
  ],
  // Free text refuses control characters, bidi controls and lengths past the field's maxLength.
  [
    'cpu-model-control-char.json',
    minimal,
    '/environment/client/cpu/model',
    (d) => (d.environment.client.cpu.model = 'Intel(R) Xeon(R)\u0007 CPU E5-2680 v4 @ 2.40GHz'),
  ],
  [
    'cpu-model-rtl-override.json',
    minimal,
    '/environment/client/cpu/model',
    (d) => (d.environment.client.cpu.model = 'AMD EPYC \u202e7763 64-Core Processor'),
  ],
  [
    'cpu-model-too-long.json',
    minimal,
    '/environment/client/cpu/model',
    (d) => (d.environment.client.cpu.model = `AMD EPYC 7763 ${'64-Core Processor '.repeat(12)}`),
  ],
];

/** The same for envelopes; they start from the freshly signed one. */
const ENVELOPE_DEFECTS = [
  ['envelope-missing-signature.json', '/signature', (e) => delete e.signature],
  [
    'envelope-bad-key-fingerprint.json',
    '/keyFingerprint',
    (e) => (e.keyFingerprint = e.keyFingerprint.slice(0, -1)),
  ],
  ['envelope-short-public-key.json', '/publicKey', (e) => (e.publicKey = e.publicKey.slice(4))],
  ['envelope-payload-as-object.json', '/payload', (e) => (e.payload = JSON.parse(e.payload))],
  ['envelope-extra-field.json', '/privateKey', (e) => (e.privateKey = 'MC4CAQAwBQYDK2VwBCIEI...')],
];

// --- write ------------------------------------------------------------------------------------------

const write = (path, doc) => writeFileSync(here(path), `${JSON.stringify(doc, null, 2)}\n`);
const must = (outcome, what) => {
  if (!outcome.ok)
    throw new Error(`${what} does not validate: ${outcome.errors.map((e) => e.message).join('; ')}`);
};

must(validateResult(suiteRun), 'suite-run');
must(validateResult(adhoc), 'adhoc');
must(validateResult(minimal), 'minimal');
must(validateResult(runGroupMember), 'run-group-member');
must(validateResult(clusterRun), 'cluster-run');
mkdirSync(here('valid/'), { recursive: true });
write('valid/suite-run.json', suiteRun);
write('valid/adhoc-open-loop-macos.json', adhoc);
write('valid/minimal.json', minimal);
write('valid/run-group-member.json', runGroupMember);
write('valid/cluster-run.json', clusterRun);
const envelope = makeEnvelope();
must(validateEnvelope(envelope), 'envelope');
write(ENVELOPE_FILE, envelope);

// The imported-* examples are written by hand (see schemas/README.md): keep them and their entries.
mkdirSync(here('invalid/'), { recursive: true });
for (const f of readdirSync(here('invalid/')))
  if (!f.startsWith('imported-') && f !== 'EXPECTED.json') rmSync(here(`invalid/${f}`));
const previous = JSON.parse(readFileSync(here('invalid/EXPECTED.json'), 'utf8'));
const expected = Object.fromEntries(Object.entries(previous).filter(([f]) => f.startsWith('imported-')));
for (const [file, base, path, change] of DEFECTS) {
  const doc = structuredClone(base);
  change(doc);
  if (validateResult(doc).ok) throw new Error(`${file} still validates`);
  write(`invalid/${file}`, doc);
  expected[file] = path;
}
for (const [file, path, change] of ENVELOPE_DEFECTS) {
  const doc = structuredClone(envelope);
  change(doc);
  if (validateEnvelope(doc).ok) throw new Error(`${file} still validates`);
  write(`invalid/${file}`, doc);
  expected[file] = path;
}
write('invalid/EXPECTED.json', expected);
console.log(
  `wrote ${readdirSync(here('valid/')).length} valid and ${Object.keys(expected).length} invalid examples`,
);
