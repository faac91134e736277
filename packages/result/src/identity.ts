import type { ImportedV1 } from './generated/imported-v1.js';
import type { ResultV1 } from './generated/result-v1.js';

/**
 * What makes two results "the same machine" and "the same configuration": the one definition every
 * summary (site, read API, CLI rank) uses, so no view pools what another splits. Pure, no I/O.
 *
 * Unknown fields: a field a result did not record is written "?" in the key. Two results are one
 * machine kind only when every field is equal as written, so an unknown never equals a known value
 * (a result with no cache sizes is never pooled with one that has them); two results that both lack
 * the same field, and agree on everything recorded, are one kind, labelled with what is missing,
 * because nothing recorded tells them apart.
 */
export interface MachineFacts {
  vendor: string | null;
  model: string | null;
  family: number | null;
  modelNumber: number | null;
  stepping: number | null;
  cores: number | null;
  threads: number | null;
  l1dKiB: number | null;
  l2KiB: number | null;
  l3KiB: number | null;
  /** bare-metal, vm, container, vm+container. */
  virtualization: string | null;
  hypervisor: string | null;
  container: string | null;
}

/**
 * The server settings a result records that change throughput. io-threads-do-reads counts only
 * with io-threads above 1 (with one thread there is nothing to do reads). The allocator counts by
 * family (jemalloc, libc, tcmalloc): each server version bundles its own jemalloc release, which is
 * part of the version, not a setting.
 */
export interface ConfigFacts {
  ioThreads: number | null;
  ioThreadsDoReads: boolean | null;
  /** true: AOF on; its fsync policy is appendfsync. */
  appendonly: boolean | null;
  appendfsync: string | null;
  /** CONFIG GET save: "" is RDB snapshots off. */
  save: string | null;
  /** tcp, unix or tls. */
  transport: string | null;
  /** standalone, cluster, sentinel. */
  topology: string | null;
  allocator: string | null;
  /** 0 is no limit. */
  maxmemoryBytes: number | null;
  maxmemoryPolicy: string | null;
  resp3: boolean | null;
}

export interface Identity {
  /** Equal keys: the same kind. Stable between builds (a database column). */
  key: string;
  /** A few words that tell kinds apart: "AMD EPYC · fam 25 mod 1 · L1d 32 KiB · L2 512 KiB · 2 vCPU · KVM". */
  label: string;
}

export interface ConfigIdentity extends Identity {
  /** The configuration `redis-benchdb run` launches by default: the one default views show. */
  isDefault: boolean;
}

const known = (x: unknown) => (x === null || x === undefined ? '?' : String(x));

export function machineIdentity(f: MachineFacts): Identity {
  const fields = [
    f.vendor,
    f.model,
    f.family,
    f.modelNumber,
    f.stepping,
    f.cores,
    f.threads,
    f.l1dKiB,
    f.l2KiB,
    f.l3KiB,
    f.virtualization,
    f.hypervisor,
    f.container,
  ];
  return { key: `m1|${fields.map(known).join('|')}`, label: machineLabel(f) };
}

const kib = (n: number) => (n >= 1024 && n % 1024 === 0 ? `${n / 1024} MiB` : `${n} KiB`);

function machineLabel(f: MachineFacts): string {
  const parts = [f.model ?? 'unknown CPU'];
  if (f.family !== null || f.modelNumber !== null)
    parts.push(
      `fam ${known(f.family)} mod ${known(f.modelNumber)}${f.stepping !== null ? ` step ${f.stepping}` : ''}`,
    );
  if (f.l1dKiB === null && f.l2KiB === null && f.l3KiB === null) parts.push('caches unknown');
  else
    parts.push(
      `L1d ${f.l1dKiB === null ? '?' : kib(f.l1dKiB)} · L2 ${f.l2KiB === null ? '?' : kib(f.l2KiB)}`,
    );
  if (f.l3KiB !== null) parts.push(`L3 ${kib(f.l3KiB)}`);
  const cpus =
    f.threads === null
      ? f.cores === null
        ? 'CPUs unknown'
        : `${f.cores} cores`
      : f.cores !== null && f.cores !== f.threads
        ? `${f.cores} cores / ${f.threads} threads`
        : `${f.threads} ${f.virtualization?.startsWith('vm') ? 'vCPU' : 'CPU'}`;
  parts.push(cpus);
  const place =
    f.virtualization === 'bare-metal'
      ? 'bare metal'
      : f.virtualization === null
        ? 'virtualization unknown'
        : (f.hypervisor ?? f.virtualization);
  parts.push(f.container ? `${place} + ${f.container}` : place);
  return parts.join(' · ');
}

/** The allocator's family: "jemalloc-5.3.0" is jemalloc. */
export function allocatorFamily(a: string | null): string | null {
  if (a === null) return null;
  const m = /^[a-z]+/i.exec(a);
  return m ? m[0].toLowerCase() : a;
}

export function configIdentity(f: ConfigFacts): ConfigIdentity {
  const io = f.ioThreads;
  const doReads = io !== null && io > 1 ? known(f.ioThreadsDoReads) : '-';
  const aof = f.appendonly === null ? '?' : f.appendonly ? `aof-${known(f.appendfsync)}` : 'no-aof';
  const rdb = f.save === null ? '?' : f.save.trim() === '' ? 'no-rdb' : `rdb(${f.save.trim()})`;
  const alloc = allocatorFamily(f.allocator);
  const maxmemory = f.maxmemoryBytes === null ? '?' : f.maxmemoryBytes === 0 ? '0' : `${f.maxmemoryBytes}`;
  const policy = f.maxmemoryBytes === 0 ? '-' : known(f.maxmemoryPolicy);
  const fields = [
    known(io),
    doReads,
    aof,
    rdb,
    known(f.transport),
    known(f.topology),
    known(alloc),
    maxmemory,
    policy,
    known(f.resp3),
  ];
  const isDefault =
    io === 1 &&
    f.appendonly === false &&
    rdb === 'no-rdb' &&
    f.transport === 'tcp' &&
    f.topology === 'standalone' &&
    alloc === 'jemalloc' &&
    f.maxmemoryBytes === 0 &&
    f.resp3 === false;
  const parts = [
    `io-threads ${known(io)}${doReads === 'true' ? ' + reads' : ''}`,
    f.appendonly === null ? 'AOF ?' : f.appendonly ? `AOF ${known(f.appendfsync)}` : 'no AOF',
    rdb === '?' ? 'RDB ?' : rdb === 'no-rdb' ? 'no RDB' : 'RDB snapshots',
    known(f.transport),
    known(f.topology),
    known(alloc),
  ];
  if (maxmemory !== '0') parts.push(`maxmemory ${maxmemory} ${policy}`);
  if (f.resp3 !== false) parts.push(`RESP3 ${known(f.resp3)}`);
  return { key: `c1|${fields.join('|')}`, label: parts.join(' · '), isDefault };
}

/** The machine a signed result ran on, as it recorded it (client and server share the machine). */
export function machineFactsOf(r: ResultV1): MachineFacts {
  const { cpu, virtualization: v } = r.environment.client;
  return {
    vendor: cpu.vendor ?? null,
    model: cpu.model ?? null,
    family: cpu.family ?? null,
    modelNumber: cpu.modelNumber ?? null,
    stepping: cpu.stepping ?? null,
    cores: cpu.cores ?? null,
    threads: cpu.threads ?? null,
    l1dKiB: cpu.cacheL1dKiB ?? null,
    l2KiB: cpu.cacheL2KiB ?? null,
    l3KiB: cpu.cacheL3KiB ?? null,
    virtualization: v.kind ?? null,
    hypervisor: v.hypervisor ?? null,
    container: v.container ?? null,
  };
}

export function configFactsOf(r: ResultV1): ConfigFacts {
  const s = r.environment.server;
  const t = r.target;
  return {
    ioThreads: s.ioThreads,
    ioThreadsDoReads: s.ioThreadsDoReads,
    appendonly: s.persistence.appendonly,
    appendfsync: s.persistence.appendfsync,
    save: s.persistence.save,
    transport: t.tls ? 'tls' : t.socket ? 'unix' : 'tcp',
    topology: t.cluster ? 'cluster' : (s.mode ?? null),
    allocator: s.allocator,
    maxmemoryBytes: s.maxmemoryBytes,
    maxmemoryPolicy: s.maxmemoryPolicy,
    resp3: t.resp3,
  };
}

/** A published result states little: what it does not state is unknown, so it pools with no signed result. */
export function importedMachineFacts(r: ImportedV1): MachineFacts {
  const m = r.machine;
  return {
    vendor: null,
    model: m.cpuModel,
    family: null,
    modelNumber: null,
    stepping: null,
    cores: m.cores,
    threads: null,
    l1dKiB: null,
    l2KiB: null,
    l3KiB: null,
    virtualization: m.virtualization,
    hypervisor: null,
    container: null,
  };
}

/**
 * What an imported result's source states of the configuration (server.settings): each setting it
 * does not state is unknown, so it pools with no signed result, whose settings are all recorded.
 */
export function importedConfigFacts(r: ImportedV1): ConfigFacts {
  const s = r.server.settings ?? {};
  return {
    ioThreads: s.ioThreads ?? null,
    ioThreadsDoReads: null,
    appendonly: s.appendonly ?? null,
    appendfsync: null,
    // Off is save ""; on without its schedule stays unknown in the key (the label says "RDB snapshots").
    save: s.rdbSnapshots === false ? '' : null,
    transport: s.transport ?? null,
    topology: null,
    allocator: null,
    maxmemoryBytes: null,
    maxmemoryPolicy: null,
    resp3: null,
  };
}

/**
 * An imported result's configuration: the key as configIdentity's, the label what the source states
 * followed by what it does not ("io-threads 1 · not stated: persistence, transport, ..."), never
 * "?" for a setting a reader would take for a measured unknown.
 */
export function importedConfigIdentity(r: ImportedV1): ConfigIdentity {
  const s = r.server.settings ?? {};
  const stated: string[] = [];
  const not: string[] = [];
  if (s.ioThreads !== undefined) stated.push(`io-threads ${s.ioThreads}`);
  else not.push('io-threads');
  if (s.appendonly === undefined && s.rdbSnapshots === undefined) not.push('persistence');
  else {
    if (s.appendonly !== undefined) stated.push(s.appendonly ? 'AOF' : 'no AOF');
    else not.push('AOF');
    if (s.rdbSnapshots !== undefined) stated.push(s.rdbSnapshots ? 'RDB snapshots' : 'no RDB');
    else not.push('RDB');
  }
  if (s.transport !== undefined) stated.push(s.transport);
  else not.push('transport');
  not.push('topology', 'allocator', 'maxmemory', 'RESP3');
  const { key, isDefault } = configIdentity(importedConfigFacts(r));
  return { key, isDefault, label: [...stated, `not stated: ${not.join(', ')}`].join(' · ') };
}
