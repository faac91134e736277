// The servers and links of the synthetic results. `speed` is per-thread speed against Redis 7.0;
// `threads(cores)` is how many threads serve requests (io-threads, KeyDB's server threads,
// Dragonfly's shards), which lifts the ceiling at 50+ connections until the client is the limit.

const SERVERS = [
  { product: 'redis', version: '6.2.14', allocator: 'jemalloc-5.1.0', speed: 0.95, io: [1], weight: 2 },
  { product: 'redis', version: '7.0.15', allocator: 'jemalloc-5.2.1', speed: 1.0, io: [1, 1, 2], weight: 4 },
  {
    product: 'redis',
    version: '7.2.5',
    allocator: 'jemalloc-5.3.0',
    speed: 1.02,
    io: [1, 1, 2, 4],
    weight: 4,
  },
  {
    product: 'redis',
    version: '7.4.1',
    allocator: 'jemalloc-5.3.0',
    speed: 1.03,
    io: [1, 1, 2, 4],
    weight: 5,
  },
  { product: 'valkey', version: '7.2.7', allocator: 'jemalloc-5.3.0', speed: 1.02, io: [1, 2], weight: 2 },
  {
    product: 'valkey',
    version: '8.0.1',
    allocator: 'jemalloc-5.3.0',
    speed: 1.06,
    io: [1, 2, 4, 8],
    weight: 4,
  },
  { product: 'keydb', version: '6.3.4', allocator: 'jemalloc-5.2.1', speed: 0.9, io: [2, 4], weight: 1 },
  { product: 'dragonfly', version: '1.23.2', allocator: 'mimalloc-2.1.2', speed: 0.8, io: [null], weight: 2 },
];

export function pickServer(r, machine) {
  const s = r.weighted(SERVERS.map((x) => [x, x.weight]));
  const ioThreads = r.pick(s.io);
  const allocator = s.product === 'redis' && r.next() < 0.08 ? 'libc' : s.allocator;
  const persistence = r.weighted([
    [{ save: '', appendonly: false, appendfsync: 'everysec' }, 8],
    [{ save: '3600 1 300 100 60 10000', appendonly: false, appendfsync: 'everysec' }, 1],
    [{ save: '', appendonly: true, appendfsync: 'everysec' }, 1],
  ]);
  const unknown = {};
  if (ioThreads === null) {
    unknown.ioThreads = 'dragonfly has no io-threads setting (it runs one shard per proactor thread)';
    unknown.ioThreadsDoReads = 'dragonfly has no io-threads setting';
  }
  const { kernel, platform, arch } = machine.client.os;
  const server = {
    product: s.product,
    version: s.version,
    gitSha: '00000000',
    buildId: r.hex(16),
    mode: 'standalone',
    archBits: 64,
    allocator,
    ioThreads,
    ioThreadsDoReads: ioThreads === null ? null : ioThreads > 1,
    persistence,
    maxmemoryBytes: 0,
    maxmemoryPolicy: 'noeviction',
    multiplexingApi: platform === 'darwin' ? 'kqueue' : 'epoll',
    os: `${platform === 'darwin' ? 'Darwin' : 'Linux'} ${kernel} ${arch === 'x64' ? 'x86_64' : 'aarch64'}`,
    loglevel: r.next() < 0.02 ? 'verbose' : 'notice',
    connectedClients: 1,
    monitorClients: 0,
    local: true,
    unknown,
  };
  const serving = s.product === 'dragonfly' ? Math.max(1, machine.cores - 1) : (ioThreads ?? 1);
  // Persistence costs the main thread fork()s and writes; extra threads help less than linearly.
  const speed = s.speed * machine.speed * (persistence.appendonly ? 0.85 : persistence.save ? 0.95 : 1);
  return { server, speed, threads: Math.min(serving, Math.max(1, machine.cores - 1)) };
}

/** Loopback mostly; unix sockets; and a network for a quarter, with its round trip. */
export function pickLink(r, machine, forcedKind = null) {
  const kind =
    forcedKind ??
    (machine.darwin ? 'tcp-loopback' : null) ??
    r.weighted([
      ['tcp-loopback', 6],
      ['unix', 1.5],
      ['tcp-network', 2.5],
    ]);
  const base =
    kind === 'tcp-network' ? 45 + r.next() * 250 : kind === 'unix' ? 12 + r.next() * 15 : 18 + r.next() * 40;
  const rttP50 = Math.round(base / Math.min(machine.speed, 1.5));
  const intrinsicMax = Math.round((machine.vm ? 300 + r.next() * 3000 : 20 + r.next() * 80) * 10) / 10;
  return {
    kind,
    sameHost: kind !== 'tcp-network',
    rttUs: {
      p50Us: rttP50,
      p99Us: Math.round(rttP50 * (1.6 + r.next() * (machine.vm ? 3 : 1))),
      samples: 2000,
    },
    intrinsicLatencyUs: {
      maxUs: intrinsicMax,
      avgUs: Math.round((0.03 + r.next() * 0.1) * 1000) / 1000,
      durationMs: 1000,
    },
  };
}
