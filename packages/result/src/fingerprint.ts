import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical.js';
import type { Workload } from './generated/result-v1.js';

/**
 * A workload as the engine, the CLI or a stored document gives it. The parameters without a
 * default are required; a value size may be a number, `[min, max]` or `{ min, max }`.
 */
export interface WorkloadInput {
  test: string;
  command?: readonly string[] | null;
  setGetRatio?: readonly [number, number] | null;
  connections: number;
  pipelineDepth: number;
  pipelineMode?: Workload['pipelineMode'];
  valueSizeBytes: number | readonly [number, number] | { min: number; max: number };
  keyspaceSize: number;
  keyPattern?: Workload['keyPattern'];
  zipfExponent?: number;
  rateOpsPerSec?: number | null;
  arrival?: Workload['arrival'];
  preload?: boolean;
  /** A search for the rate at these objectives (run --slo), in canonical form; absent for other cells. */
  slo?: string | null;
  // Recorded but not fingerprinted: they change how long or how a cell runs, not what it measures.
  seed?: number;
  requests?: number | null;
  durationSec?: number | null;
  warmupSec?: number;
  threads?: number;
}

/** What a workload fingerprint is the hash of. */
export type NormalizedWorkload = Omit<
  Workload,
  'seed' | 'requests' | 'durationSec' | 'warmupSec' | 'threads'
>;

/**
 * The workload as fingerprinted (docs/RESULT-FORMAT.md): defaults filled (pipelineMode batch,
 * keyPattern uniform, zipfExponent 0.99, arrival constant, preload false, command, setGetRatio and
 * rateOpsPerSec null; slo only when given), the value size as `{ min, max }`, the test name upper-cased, and seed,
 * requests, durationSec, warmupSec and threads dropped. Properties it does not know are dropped too:
 * a new workload parameter must be added here, or two workloads that differ in it would collide.
 */
export function normalizeWorkload(w: WorkloadInput): NormalizedWorkload {
  if (typeof w.test !== 'string' || w.test === '') throw new TypeError('workload.test: expected a test name');
  const [min, max] = valueSize(w.valueSizeBytes);
  return {
    test: w.test.toUpperCase(),
    command: w.command ? [...w.command] : null,
    setGetRatio: w.setGetRatio ? [w.setGetRatio[0], w.setGetRatio[1]] : null,
    connections: required(w, 'connections'),
    pipelineDepth: required(w, 'pipelineDepth'),
    pipelineMode: w.pipelineMode ?? 'batch',
    valueSizeBytes: { min, max },
    keyspaceSize: required(w, 'keyspaceSize'),
    keyPattern: w.keyPattern ?? 'uniform',
    zipfExponent: w.zipfExponent ?? 0.99,
    rateOpsPerSec: w.rateOpsPerSec ?? null,
    arrival: w.arrival ?? 'constant',
    preload: w.preload ?? false,
    // Only when present, so that every fingerprint made before --slo existed stays as it was.
    ...(w.slo ? { slo: w.slo } : {}),
  };
}

/** `sha256:` and the hex SHA-256 of the normalized workload's canonical JSON. */
export function workloadFingerprint(w: WorkloadInput): string {
  return sha256(canonicalJson(normalizeWorkload(w)));
}

function required(w: WorkloadInput, name: 'connections' | 'pipelineDepth' | 'keyspaceSize'): number {
  const v = w[name];
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new TypeError(`workload.${name}: expected a number, got ${JSON.stringify(v)}`);
  return v;
}

function valueSize(v: WorkloadInput['valueSizeBytes']): [number, number] {
  const pair: [unknown, unknown] =
    typeof v === 'number'
      ? [v, v]
      : Array.isArray(v)
        ? [v[0], v[1]]
        : v && typeof v === 'object'
          ? [(v as { min: unknown }).min, (v as { max: unknown }).max]
          : [undefined, undefined];
  const [min, max] = pair;
  if (typeof min !== 'number' || typeof max !== 'number' || !Number.isFinite(min) || !Number.isFinite(max))
    throw new TypeError(
      `workload.valueSizeBytes: expected bytes, [min, max] or { min, max }, got ${JSON.stringify(v)}`,
    );
  return [min, max];
}

type Maybe<T> = T | null | undefined;

/** The parts of the environment block that go into its fingerprint; everything else may be absent. */
export interface EnvironmentFingerprintInput {
  client: {
    cpu?: Maybe<{
      model?: Maybe<string>;
      cores?: Maybe<number>;
      threads?: Maybe<number>;
      smt?: Maybe<boolean>;
    }>;
    numa?: Maybe<{ nodes?: Maybe<number>; clientCpus?: Maybe<string>; serverCpus?: Maybe<string> }>;
    memory?: Maybe<{ totalBytes?: Maybe<number> }>;
    virtualization?: Maybe<{ kind?: Maybe<string>; hypervisor?: Maybe<string> }>;
    os?: Maybe<{ kernel?: Maybe<string> }>;
    thp?: Maybe<{ enabled?: Maybe<string> }>;
    cpuGovernor?: Maybe<string>;
  };
  server: {
    product?: Maybe<string>;
    version?: Maybe<string>;
    gitSha?: Maybe<string>;
    buildId?: Maybe<string>;
    allocator?: Maybe<string>;
    ioThreads?: Maybe<number>;
    ioThreadsDoReads?: Maybe<boolean>;
    hz?: Maybe<number>;
    persistence?: Maybe<{ save?: Maybe<string>; appendonly?: Maybe<boolean>; appendfsync?: Maybe<string> }>;
    mode?: Maybe<string>;
    archBits?: Maybe<number>;
  };
  link: { kind: string };
}

/**
 * `sha256:` and the hex SHA-256 of the canonical JSON of the environment's stable subset: what
 * makes results from two runs comparable as "the same setup", and nothing that changes from run to
 * run on one setup. The subset, with every absent or unknown value as null:
 *
 *   client.cpu.{model, cores, threads, smt}, client.numa.nodes, client.memory.totalBytes,
 *   client.virtualization.{kind, hypervisor}, client.os.kernel, client.thp.enabled, client.cpuGovernor;
 *   server.{product, version, gitSha, buildId, allocator, ioThreads, mode, archBits},
 *   server.persistence.{save, appendonly, appendfsync};
 *   link.kind.
 *
 * Left out on purpose: clock speeds and cache sizes (follow from the model), the NUMA binding of
 * this run's processes, swap use, connected clients, RTT and intrinsic latency (vary run to run),
 * cloud provider and instance type (the hardware fields already say it), OS distro and release
 * (the kernel is what matters), mitigations, maxmemory, loglevel and the unknown maps.
 * Changing this subset changes every fingerprint: it is part of the result.v1 format.
 */
export function environmentFingerprint(env: EnvironmentFingerprintInput): string {
  return sha256(canonicalJson(v1Subset(env)));
}

function v1Subset(env: EnvironmentFingerprintInput) {
  const c = env.client;
  const s = env.server;
  const subset = {
    client: {
      cpu: {
        model: n(c.cpu?.model),
        cores: n(c.cpu?.cores),
        threads: n(c.cpu?.threads),
        smt: n(c.cpu?.smt),
      },
      numa: { nodes: n(c.numa?.nodes) },
      memory: { totalBytes: n(c.memory?.totalBytes) },
      virtualization: { kind: n(c.virtualization?.kind), hypervisor: n(c.virtualization?.hypervisor) },
      os: { kernel: n(c.os?.kernel) },
      thp: { enabled: n(c.thp?.enabled) },
      cpuGovernor: n(c.cpuGovernor),
    },
    server: {
      product: n(s.product),
      version: n(s.version),
      gitSha: n(s.gitSha),
      buildId: n(s.buildId),
      allocator: n(s.allocator),
      ioThreads: n(s.ioThreads),
      persistence: {
        save: n(s.persistence?.save),
        appendonly: n(s.persistence?.appendonly),
        appendfsync: n(s.persistence?.appendfsync),
      },
      mode: n(s.mode),
      archBits: n(s.archBits),
    },
    link: { kind: env.link.kind },
  };
  return subset;
}

function n<T>(v: Maybe<T>): T | null {
  return v ?? null;
}

function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** The fingerprint version new results carry (environment.fingerprintVersion). */
export const ENV_FINGERPRINT_VERSION = 'env-v2';

/**
 * env-v2: the env-v1 subset, plus what env-v1 missed and changes results: the server's `hz` and
 * `io-threads-do-reads`, and the CPU pinning (whether client and server were each confined to
 * fewer CPUs than the machine has, and whether their CPU sets are disjoint; unknown is null). The
 * version itself is hashed, so an env-v2 fingerprint never equals an env-v1 one.
 */
export function environmentFingerprintV2(env: EnvironmentFingerprintInput): string {
  const v1 = v1Subset(env);
  const c = env.client;
  const threads = c.cpu?.threads ?? null;
  const client = cpuSet(c.numa?.clientCpus);
  const server = cpuSet(c.numa?.serverCpus);
  const pinned = (set: Set<number> | null) => (set === null || threads === null ? null : set.size < threads);
  const subset = {
    version: ENV_FINGERPRINT_VERSION,
    ...v1,
    server: { ...v1.server, ioThreadsDoReads: n(env.server.ioThreadsDoReads), hz: n(env.server.hz) },
    pinning: {
      client: pinned(client),
      server: pinned(server),
      disjoint: client && server ? [...client].every((cpu) => !server.has(cpu)) : null,
    },
  };
  return sha256(canonicalJson(subset));
}

/** A CPU list as the kernel writes it ("0-3,8,10-11") → the set; null when unknown or malformed. */
export function cpuSet(list: Maybe<string>): Set<number> | null {
  if (!list?.trim()) return null;
  const out = new Set<number>();
  for (const part of list.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) return null;
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    for (let i = lo; i <= hi; i++) out.add(i);
  }
  return out;
}
