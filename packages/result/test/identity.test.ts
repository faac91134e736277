import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  admissionReasons,
  type ConfigFacts,
  configIdentity,
  type ImportedV1,
  importedConfigFacts,
  importedConfigIdentity,
  leftOutText,
  type MachineFacts,
  machineIdentity,
  spreadLabel,
} from '../src/index.js';

// The one machine identity, configuration identity and admission rule every summary uses.

const epyc: MachineFacts = {
  vendor: 'AMD',
  model: 'AMD EPYC',
  family: 25,
  modelNumber: 1,
  stepping: 1,
  cores: 2,
  threads: 2,
  l1dKiB: 32,
  l2KiB: 512,
  l3KiB: 32768,
  virtualization: 'vm+container',
  hypervisor: 'KVM',
  container: 'docker',
};

const defaults: ConfigFacts = {
  ioThreads: 1,
  ioThreadsDoReads: false,
  appendonly: false,
  appendfsync: 'everysec',
  save: '',
  transport: 'tcp',
  topology: 'standalone',
  allocator: 'jemalloc-5.3.0',
  maxmemoryBytes: 0,
  maxmemoryPolicy: 'noeviction',
  resp3: false,
};

describe('machine identity', () => {
  it('tells apart two kinds that share a CPU model name and differ only in L2, and labels the difference', () => {
    const a = machineIdentity(epyc);
    const b = machineIdentity({ ...epyc, l2KiB: 1024 });
    expect(a.key).not.toBe(b.key);
    expect(a.label).toBe(
      'AMD EPYC · fam 25 mod 1 step 1 · L1d 32 KiB · L2 512 KiB · L3 32 MiB · 2 vCPU · KVM + docker',
    );
    expect(b.label).toContain('L2 1 MiB');
  });

  it('never equates an unknown field with a known one; two equal unknowns are one kind, labelled so', () => {
    for (const field of Object.keys(epyc) as (keyof MachineFacts)[]) {
      const unknown = machineIdentity({ ...epyc, [field]: null });
      expect(unknown.key, field).not.toBe(machineIdentity(epyc).key);
      expect(unknown.key, field).toBe(machineIdentity({ ...epyc, [field]: null }).key);
    }
    expect(machineIdentity({ ...epyc, l1dKiB: null, l2KiB: null, l3KiB: null }).label).toContain(
      'caches unknown',
    );
  });

  it('every recorded field decides', () => {
    for (const [field, other] of Object.entries({
      vendor: 'Intel',
      family: 23,
      modelNumber: 17,
      stepping: 2,
      cores: 4,
      threads: 4,
      l1dKiB: 48,
      l3KiB: 16384,
      virtualization: 'vm',
      hypervisor: 'Xen',
      container: 'podman',
    }))
      expect(machineIdentity({ ...epyc, [field]: other }).key, field).not.toBe(machineIdentity(epyc).key);
  });
});

describe('configuration identity', () => {
  it('the default configuration is the runner default; io-threads 2 and AOF are others, labelled', () => {
    expect(configIdentity(defaults).isDefault).toBe(true);
    const io2 = configIdentity({ ...defaults, ioThreads: 2 });
    const aof = configIdentity({ ...defaults, appendonly: true });
    expect(io2.isDefault).toBe(false);
    expect(aof.isDefault).toBe(false);
    expect(new Set([configIdentity(defaults).key, io2.key, aof.key]).size).toBe(3);
    expect(io2.label).toMatch(/^io-threads 2 · no AOF/);
    expect(aof.label).toContain('AOF everysec');
    for (const [field, other] of Object.entries({
      transport: 'unix',
      topology: 'cluster',
      allocator: 'libc',
      save: '3600 1',
      resp3: true,
      maxmemoryBytes: 1 << 30,
    }))
      expect(configIdentity({ ...defaults, [field]: other }).key, field).not.toBe(
        configIdentity(defaults).key,
      );
  });

  it('do-reads counts only with io-threads above 1; the bundled jemalloc release is part of the version', () => {
    expect(configIdentity({ ...defaults, ioThreadsDoReads: true }).key).toBe(configIdentity(defaults).key);
    expect(configIdentity({ ...defaults, ioThreads: 2, ioThreadsDoReads: true }).key).not.toBe(
      configIdentity({ ...defaults, ioThreads: 2 }).key,
    );
    expect(configIdentity({ ...defaults, allocator: 'jemalloc-5.1.0' }).key).toBe(
      configIdentity(defaults).key,
    );
    expect(configIdentity({ ...defaults, ioThreads: null }).isDefault).toBe(false);
  });
});

describe('admission', () => {
  it('leaves out every flag that says the figure is not the server own, client-bound only for rankings', () => {
    const none = { codes: [], incomplete: false, crossCheck: 'match', ranksServers: true };
    expect(admissionReasons(none)).toEqual([]);
    for (const code of ['BUSY_HOST', 'CPU_STEAL', 'DRIFT', 'IO_THREADS_OVER_CPUS', 'ERRORS', 'CLIENT_BOUND'])
      expect(admissionReasons({ ...none, codes: [code] }), code).toEqual([code]);
    expect(admissionReasons({ ...none, codes: ['UNSTABLE', 'VM'] })).toEqual([]);
    expect(admissionReasons({ ...none, incomplete: true })).toEqual(['INCOMPLETE']);
    expect(admissionReasons({ ...none, crossCheck: 'mismatch' })).toEqual(['COMMANDSTATS_MISMATCH']);
    expect(admissionReasons({ ...none, codes: ['CLIENT_BOUND'], ranksServers: false })).toEqual([]);
  });

  it('says what it left out, with counts', () => {
    const m = new Map([
      ['a', ['BUSY_HOST' as const]],
      ['b', ['BUSY_HOST' as const, 'DRIFT' as const]],
      ['c', ['IO_THREADS_OVER_CPUS' as const]],
      ['d', []],
    ]);
    expect(leftOutText(m)).toBe('3 results left out: 2 busy host, 1 io-threads over CPUs');
    expect(leftOutText(new Map())).toBeNull();
  });

  it('calls a spread an interval only where one exists', () => {
    expect(spreadLabel(1, 3)).toBe('range of 3 trials');
    expect(spreadLabel(1, 10)).toBe('95% interval of the median of 10 trials');
    expect(spreadLabel(1, 1)).toBe('1 trial, no spread');
    for (const k of [2, 3, 4, 5]) expect(spreadLabel(k, 3)).toBe(`range of ${k} results`);
    expect(spreadLabel(6, 3)).toBe('95% interval of the median of 6 results');
  });
});

describe("an imported result's configuration", () => {
  const imported = (f: string) =>
    JSON.parse(readFileSync(new URL(`../../../data/imported/${f}`, import.meta.url), 'utf8')) as ImportedV1;

  it('shows what the source states and says "not stated" for the rest, never "?"', () => {
    // valkey-io/valkey#1026: "io-threads 1 (single thread)"; persistence and transport not stated.
    const valkey = importedConfigIdentity(imported('valkey-1026-r6g-metal-valkey-8.0.0-rc2.json'));
    expect(valkey.label).toBe(
      'io-threads 1 · not stated: persistence, transport, topology, allocator, maxmemory, RESP3',
    );
    expect(valkey.isDefault).toBe(false);
    // redis.io's X5670 over a unix domain socket, and over the TCP loopback: two configurations.
    const unix = importedConfigIdentity(imported('redis-io-benchmarks-xeon-x5670-unix-socket.json'));
    const tcp = importedConfigIdentity(imported('redis-io-benchmarks-xeon-x5670-tcp.json'));
    expect(unix.label).toMatch(/^unix · not stated: io-threads, persistence, topology/);
    expect(tcp.label).toMatch(/^tcp · not stated: io-threads, persistence, topology/);
    expect(unix.key).not.toBe(tcp.key);
    // A page that states none of them.
    const none = importedConfigIdentity(imported('redis-io-benchmarks-keyspace-set.json'));
    expect(none.label).toBe(
      'not stated: io-threads, persistence, transport, topology, allocator, maxmemory, RESP3',
    );
    for (const c of [valkey, unix, tcp, none]) expect(c.label).not.toContain('?');
  });

  it('never pools with a signed result, even where what it states agrees', () => {
    const valkey = importedConfigIdentity(imported('valkey-1026-r6g-metal-valkey-7.2.6.json'));
    expect(valkey.key).toBe(
      configIdentity(importedConfigFacts(imported('valkey-1026-r6g-metal-valkey-7.2.6.json'))).key,
    );
    expect(valkey.key).not.toBe(configIdentity(defaults).key);
    expect(valkey.key.startsWith('c1|1|')).toBe(true);
  });
});
