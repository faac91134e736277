/**
 * The environment blocks of `redis-benchdb/result.v1` (docs/RESULT-FORMAT.md). Kept structurally
 * identical to the types generated from the JSON Schema in @redis-benchdb/result, so the probe can
 * switch to those without touching its callers.
 *
 * A field that cannot be known is `null`, and its dotted path (relative to the block) is listed
 * with the reason in the block's `unknown` map. It is never a guess.
 */

/** Reasons keyed by dotted path, e.g. `{ "cpu.baseMhz": "file /sys/... absent" }`. */
export type UnknownMap = Record<string, string>;

export type VirtualizationKind = 'bare-metal' | 'vm' | 'container' | 'vm+container';
export type ThpMode = 'always' | 'madvise' | 'never';

export interface Machine {
  cpu: {
    model: string | null;
    vendor: string | null;
    sockets: number | null;
    /** Physical cores, all sockets. */
    cores: number | null;
    /** Logical CPUs (hardware threads), all sockets. */
    threads: number | null;
    smt: boolean | null;
    baseMhz: number | null;
    maxMhz: number | null;
    /** Size of one cache instance as seen by CPU 0 (per core for L1/L2, per complex/socket for L3). */
    cacheL1dKiB: number | null;
    cacheL2KiB: number | null;
    cacheL3KiB: number | null;
  };
  numa: {
    nodes: number | null;
    clientNode: number | null;
    /** CPUs the client may run on, as a list like "0-3,8". */
    clientCpus: string | null;
    serverNode: number | null;
    serverCpus: string | null;
  };
  memory: { totalBytes: number | null };
  virtualization: {
    kind: VirtualizationKind | null;
    hypervisor: string | null;
    container: string | null;
  };
  cloud: { provider: string | null; instanceType: string | null };
  os: {
    /** Node's `process.platform` naming: linux, darwin, win32... Always known. */
    platform: string;
    distro: string | null;
    release: string | null;
    kernel: string | null;
    /** Node's `process.arch` naming: x64, arm64... Always known. */
    arch: string;
  };
  thp: { enabled: ThpMode | null; defrag: string | null };
  cpuGovernor: string | null;
  swapTotalBytes: number | null;
  swapUsedBytes: number | null;
  /** File name under /sys/devices/system/cpu/vulnerabilities → its status line. */
  mitigations: Record<string, string> | null;
  unknown: UnknownMap;
}

export type ServerProduct = 'redis' | 'valkey' | 'keydb' | 'dragonfly' | 'unknown';
export type ServerMode = 'standalone' | 'cluster' | 'sentinel';

export interface Server {
  product: ServerProduct;
  version: string | null;
  gitSha: string | null;
  buildId: string | null;
  mode: ServerMode | null;
  archBits: number | null;
  allocator: string | null;
  ioThreads: number | null;
  ioThreadsDoReads: boolean | null;
  persistence: {
    /** The `save` setting as CONFIG GET reports it; "" means RDB snapshots are off. */
    save: string | null;
    appendonly: boolean | null;
    appendfsync: string | null;
  };
  maxmemoryBytes: number | null;
  maxmemoryPolicy: string | null;
  multiplexingApi: string | null;
  os: string | null;
  loglevel: string | null;
  connectedClients: number | null;
  monitorClients: number | null;
  local: boolean | null;
  unknown: UnknownMap;
}

export type LinkKind = 'tcp-loopback' | 'unix' | 'tcp-network';

export interface IntrinsicLatency {
  maxUs: number;
  avgUs: number;
  durationMs: number;
}

export interface Link {
  kind: LinkKind;
  sameHost: boolean | null;
  /** PING round trips on one connection. */
  rttUs: { p50Us: number; p99Us: number; samples: number } | null;
  intrinsicLatencyUs: IntrinsicLatency | null;
}

export type WarningCode =
  | 'VM'
  | 'CONTAINER'
  | 'THP_ALWAYS'
  | 'SWAP_IN_USE'
  | 'GOVERNOR_NOT_PERFORMANCE'
  | 'PERSISTENCE_ON'
  | 'SAME_HOST'
  | 'CLIENT_BOUND'
  | 'UNSTABLE'
  | 'MONITOR_CLIENTS'
  | 'DEBUG_LOGLEVEL';

export interface Warning {
  code: WarningCode;
  message: string;
  /** The cell label for cell-level warnings (CLIENT_BOUND, UNSTABLE); null for the environment. */
  cell: string | null;
}
