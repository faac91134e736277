import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  cpuSet,
  ENV_FINGERPRINT_VERSION,
  environmentFingerprint,
  environmentFingerprintV2,
  normalizeWorkload,
  type WorkloadInput,
  workloadFingerprint,
} from '../src/index.js';

const base: WorkloadInput = {
  test: 'GET',
  command: null,
  setGetRatio: null,
  connections: 50,
  pipelineDepth: 1,
  pipelineMode: 'batch',
  valueSizeBytes: { min: 256, max: 256 },
  keyspaceSize: 1_000_000,
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
};
const fp = workloadFingerprint(base);

/** The same object with its keys in reverse order, all the way down. */
function reversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversed);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reversed(x)]),
    );
  return v;
}

describe('workloadFingerprint', () => {
  it('is sha256 of the normalized workload', () => {
    expect(fp).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('does not depend on key order', () => {
    expect(workloadFingerprint(reversed(base) as WorkloadInput)).toBe(fp);
  });

  it('reads a value size as n, [n, n] or { min: n, max: n }', () => {
    expect(workloadFingerprint({ ...base, valueSizeBytes: 256 })).toBe(fp);
    expect(workloadFingerprint({ ...base, valueSizeBytes: [256, 256] })).toBe(fp);
    expect(workloadFingerprint({ ...base, valueSizeBytes: { max: 256, min: 256 } })).toBe(fp);
    expect(normalizeWorkload({ ...base, valueSizeBytes: [16, 4096] }).valueSizeBytes).toEqual({
      min: 16,
      max: 4096,
    });
  });

  it('ignores the case of the test name', () => {
    expect(workloadFingerprint({ ...base, test: 'get' })).toBe(fp);
    expect(workloadFingerprint({ ...base, test: 'Get' })).toBe(fp);
  });

  it('ignores what does not change what is measured: seed, requests, duration, warm-up, threads', () => {
    const variants: Partial<WorkloadInput>[] = [
      { seed: 42 },
      { requests: 100_000, durationSec: null },
      { durationSec: 60 },
      { warmupSec: 0 },
      { threads: 4 },
    ];
    for (const v of variants) expect(workloadFingerprint({ ...base, ...v }), JSON.stringify(v)).toBe(fp);
    const { seed: _s, requests: _r, durationSec: _d, warmupSec: _w, threads: _t, ...rest } = base;
    expect(workloadFingerprint(rest)).toBe(fp);
  });

  it('fills the documented defaults', () => {
    const minimal: WorkloadInput = {
      test: 'get',
      connections: 50,
      pipelineDepth: 1,
      valueSizeBytes: 256,
      keyspaceSize: 1_000_000,
      preload: true,
    };
    expect(workloadFingerprint(minimal)).toBe(fp);
    expect(normalizeWorkload({ ...minimal, preload: undefined })).toEqual({
      test: 'GET',
      command: null,
      setGetRatio: null,
      connections: 50,
      pipelineDepth: 1,
      pipelineMode: 'batch',
      valueSizeBytes: { min: 256, max: 256 },
      keyspaceSize: 1_000_000,
      keyPattern: 'uniform',
      zipfExponent: 0.99,
      rateOpsPerSec: null,
      arrival: 'constant',
      preload: false,
    });
  });

  it('changes with every other parameter', () => {
    const changes: Record<string, Partial<WorkloadInput>> = {
      test: { test: 'SET' },
      command: { command: ['GET', '__key__'] },
      setGetRatio: { setGetRatio: [1, 10] },
      connections: { connections: 51 },
      pipelineDepth: { pipelineDepth: 16 },
      pipelineMode: { pipelineMode: 'window' },
      'valueSizeBytes.min': { valueSizeBytes: { min: 255, max: 256 } },
      'valueSizeBytes.max': { valueSizeBytes: { min: 256, max: 257 } },
      keyspaceSize: { keyspaceSize: 1000 },
      keyPattern: { keyPattern: 'zipf' },
      zipfExponent: { zipfExponent: 1.2 },
      rateOpsPerSec: { rateOpsPerSec: 50_000 },
      arrival: { arrival: 'poisson' },
      preload: { preload: false },
    };
    // Every fingerprinted field has a change above.
    const fields = Object.keys(normalizeWorkload(base));
    expect(Object.keys(changes).map((k) => k.split('.')[0])).toEqual(expect.arrayContaining(fields));
    const seen = new Set([fp]);
    for (const [name, change] of Object.entries(changes)) {
      const other = workloadFingerprint({ ...base, ...change });
      expect(other, name).not.toBe(fp);
      seen.add(other);
    }
    expect(seen.size).toBe(Object.keys(changes).length + 1);
    // The order of a command's words and of a set:get ratio matters.
    expect(workloadFingerprint({ ...base, setGetRatio: [10, 1] })).not.toBe(
      workloadFingerprint({ ...base, setGetRatio: [1, 10] }),
    );
  });

  it('refuses a workload without its required parameters', () => {
    expect(() => workloadFingerprint({ ...base, connections: undefined as unknown as number })).toThrow(
      /workload.connections/,
    );
    expect(() =>
      workloadFingerprint({ ...base, valueSizeBytes: [1] as unknown as [number, number] }),
    ).toThrow(/workload.valueSizeBytes/);
    expect(() => workloadFingerprint({ ...base, test: '' })).toThrow(/workload.test/);
  });
});

describe('environmentFingerprint', () => {
  const env = {
    client: {
      cpu: { model: 'AMD EPYC 7R13 Processor', cores: 4, threads: 8, smt: true, maxMhz: 3600 },
      numa: { nodes: 1, clientCpus: '0-7' },
      memory: { totalBytes: 16e9 },
      virtualization: { kind: 'vm', hypervisor: 'kvm' },
      os: { kernel: '6.1.0', distro: 'Debian' },
      thp: { enabled: 'madvise' },
      cpuGovernor: null,
      swapUsedBytes: 0,
    },
    server: {
      product: 'redis',
      version: '7.4.1',
      gitSha: '00000000',
      buildId: 'abc',
      allocator: 'jemalloc-5.3.0',
      ioThreads: 1,
      persistence: { save: '', appendonly: false, appendfsync: 'everysec' },
      mode: 'standalone',
      archBits: 64,
      connectedClients: 1,
    },
    link: { kind: 'tcp-loopback', rttUs: { p50Us: 20, p99Us: 40, samples: 2000 } },
  };
  const efp = environmentFingerprint(env);

  it('ignores what varies run to run on one setup', () => {
    expect(efp).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(environmentFingerprint(reversed(env) as typeof env)).toBe(efp);
    const same = structuredClone(env);
    same.client.cpu.maxMhz = 3500;
    same.client.numa.clientCpus = '0-3';
    same.client.os.distro = 'Ubuntu';
    same.client.swapUsedBytes = 1e9;
    same.server.connectedClients = 7;
    same.link.rttUs.p99Us = 90;
    expect(environmentFingerprint(same)).toBe(efp);
  });

  it('changes with each part of the subset', () => {
    const edits: [string, (e: typeof env) => void][] = [
      ['cpu.model', (e) => (e.client.cpu.model = 'AMD EPYC 9R14')],
      ['cpu.cores', (e) => (e.client.cpu.cores = 8)],
      ['cpu.threads', (e) => (e.client.cpu.threads = 4)],
      ['cpu.smt', (e) => (e.client.cpu.smt = false)],
      ['numa.nodes', (e) => (e.client.numa.nodes = 2)],
      ['memory', (e) => (e.client.memory.totalBytes = 32e9)],
      ['virtualization.kind', (e) => (e.client.virtualization.kind = 'vm+container')],
      ['virtualization.hypervisor', (e) => (e.client.virtualization.hypervisor = 'xen')],
      ['kernel', (e) => (e.client.os.kernel = '6.8.0')],
      ['thp', (e) => (e.client.thp.enabled = 'always')],
      ['governor', (e) => ((e.client as { cpuGovernor: string | null }).cpuGovernor = 'performance')],
      ['product', (e) => (e.server.product = 'valkey')],
      ['version', (e) => (e.server.version = '7.4.2')],
      ['gitSha', (e) => (e.server.gitSha = '1a2b3c4d')],
      ['buildId', (e) => (e.server.buildId = 'def')],
      ['allocator', (e) => (e.server.allocator = 'libc')],
      ['ioThreads', (e) => (e.server.ioThreads = 4)],
      ['persistence.save', (e) => (e.server.persistence.save = '3600 1')],
      ['persistence.appendonly', (e) => (e.server.persistence.appendonly = true)],
      ['persistence.appendfsync', (e) => (e.server.persistence.appendfsync = 'always')],
      ['mode', (e) => (e.server.mode = 'cluster')],
      ['archBits', (e) => (e.server.archBits = 32)],
      ['link', (e) => (e.link.kind = 'unix')],
    ];
    for (const [name, edit] of edits) {
      const e = structuredClone(env);
      edit(e);
      expect(environmentFingerprint(e), name).not.toBe(efp);
    }
  });

  it('treats an absent part as unknown (null)', () => {
    const { model: _, ...cpuWithoutModel } = env.client.cpu;
    const without = { ...env, client: { ...env.client, cpu: cpuWithoutModel } };
    const withNull = { ...env, client: { ...env.client, cpu: { ...env.client.cpu, model: null } } };
    expect(environmentFingerprint(without)).toBe(environmentFingerprint(withNull));
    expect(environmentFingerprint(withNull)).not.toBe(efp);
    expect(environmentFingerprint({ client: {}, server: {}, link: { kind: 'unix' } })).toMatch(/^sha256:/);
  });
});

describe('environmentFingerprint env-v2', () => {
  const env = {
    client: {
      cpu: { model: 'AMD EPYC 7R13 Processor', cores: 4, threads: 8, smt: true },
      numa: { nodes: 1, clientCpus: '0-7', serverCpus: '0-7' },
      memory: { totalBytes: 16e9 },
      virtualization: { kind: 'vm', hypervisor: 'kvm' },
      os: { kernel: '6.1.0' },
      thp: { enabled: 'madvise' },
      cpuGovernor: null,
    },
    server: {
      product: 'redis',
      version: '7.4.1',
      ioThreads: 1,
      ioThreadsDoReads: false,
      hz: 10,
      persistence: { save: '', appendonly: false, appendfsync: 'everysec' },
    },
    link: { kind: 'tcp-loopback' },
  };
  const v2 = environmentFingerprintV2(env);

  it('keeps env-v1 as it was: stored results still match their fingerprint', () => {
    // Results written before env-v2 carry env-v1 fingerprints; recomputing them must still agree.
    for (const name of ['suite-run', 'minimal', 'cluster-run', 'run-group-member']) {
      const url = new URL(`../../../schemas/examples/valid/${name}.json`, import.meta.url);
      const doc = JSON.parse(readFileSync(url, 'utf8'));
      expect(doc.environment.fingerprintVersion, name).toBeUndefined();
      expect(environmentFingerprint(doc.environment), name).toBe(doc.environment.fingerprint);
    }
  });

  it('recomputes the env-v2 fingerprint a stored env-v2 example carries', () => {
    const url = new URL('../../../schemas/examples/valid/interference-drift-env-v2.json', import.meta.url);
    const doc = JSON.parse(readFileSync(url, 'utf8'));
    expect(doc.environment.fingerprintVersion).toBe('env-v2');
    expect(environmentFingerprintV2(doc.environment)).toBe(doc.environment.fingerprint);
    expect(environmentFingerprint(doc.environment)).not.toBe(doc.environment.fingerprint);
  });

  it('never equals the env-v1 fingerprint of the same environment', () => {
    expect(ENV_FINGERPRINT_VERSION).toBe('env-v2');
    expect(v2).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(v2).not.toBe(environmentFingerprint(env));
  });

  it('changes with hz, io-threads-do-reads and the CPU pinning, which env-v1 ignores', () => {
    const edits: [string, (e: typeof env) => void][] = [
      ['hz', (e) => (e.server.hz = 100)],
      ['ioThreadsDoReads', (e) => (e.server.ioThreadsDoReads = true)],
      ['client pinned', (e) => (e.client.numa.clientCpus = '0-3')],
      ['server pinned', (e) => (e.client.numa.serverCpus = '4')],
    ];
    for (const [name, edit] of edits) {
      const e = structuredClone(env);
      edit(e);
      expect(environmentFingerprintV2(e), name).not.toBe(v2);
      expect(environmentFingerprint(e), `${name} (env-v1)`).toBe(environmentFingerprint(env));
    }
  });

  it('tells disjoint pinning from overlapping pinning, not which CPUs', () => {
    const pin = (client: string, server: string) => {
      const e = structuredClone(env);
      e.client.numa.clientCpus = client;
      e.client.numa.serverCpus = server;
      return environmentFingerprintV2(e);
    };
    expect(pin('0-1', '2-3')).toBe(pin('4-5', '6'));
    expect(pin('0-1', '1-2')).not.toBe(pin('0-1', '2-3'));
  });

  it('reads kernel CPU lists', () => {
    expect([...cpuSet('0-2,5,7-8')!]).toEqual([0, 1, 2, 5, 7, 8]);
    expect(cpuSet('')).toBeNull();
    expect(cpuSet('zero')).toBeNull();
    expect(cpuSet(null)).toBeNull();
  });
});

describe('canonicalJson (RFC 8785)', () => {
  it('sorts keys by UTF-16 code units, recursively', () => {
    // RFC 8785 section 3.2.3's sorting example.
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // (Compared as text: JSON.parse would put the integer-like key '1' first again.)
    const order = ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'];
    const expected = `{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(input[k as keyof typeof input])}`).join(',')}}`;
    expect(canonicalJson(input)).toBe(expected);
    expect(expected.startsWith('{"\\r":"Carriage Return","1":"One","\u0080":"Control"')).toBe(true);
    expect(canonicalJson({ b: { d: 1, c: 2 }, a: [{ z: 1, y: 2 }] })).toBe(
      '{"a":[{"y":2,"z":1}],"b":{"c":2,"d":1}}',
    );
  });

  it('writes numbers as ECMAScript does', () => {
    // RFC 8785 appendix B, and section 3.2.2.3.
    const cases: [number, string][] = [
      [0, '0'],
      [-0, '0'],
      [1e21, '1e+21'],
      [1e20, '100000000000000000000'],
      [1e-7, '1e-7'],
      [0.000001, '0.000001'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [9007199254740992, '9007199254740992'],
      [295147905179352830000, '295147905179352830000'],
      [333333333.3333332, '333333333.3333332'],
      [4.5, '4.5'],
      [0.1 + 0.2, '0.30000000000000004'],
    ];
    for (const [n, text] of cases) expect(canonicalJson(n), String(n)).toBe(text);
  });

  it('escapes strings minimally', () => {
    expect(canonicalJson('\u20ac$\u000f\nA\'B"\\\\"/')).toBe('"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"');
    expect(canonicalJson('\b\f\t\r\u001f\u007f')).toBe('"\\b\\f\\t\\r\\u001f\u007f"');
  });

  it('matches the RFC 8785 section 3.2.2 example', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('throws, naming the path, on what JSON cannot carry', () => {
    expect(() => canonicalJson({ a: [1, Number.NaN] })).toThrow(/NaN at \/a\/1/);
    expect(() => canonicalJson({ a: { b: Number.POSITIVE_INFINITY } })).toThrow(/Infinity at \/a\/b/);
    expect(() => canonicalJson({ a: undefined })).toThrow(/undefined at \/a/);
    expect(() => canonicalJson([undefined])).toThrow(/undefined at \/0/);
    expect(() => canonicalJson(undefined)).toThrow(/undefined/);
    expect(() => canonicalJson({ n: 1n })).toThrow(/bigint/);
    expect(() => canonicalJson({ s: '\ud800' })).toThrow(/surrogate/);
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => canonicalJson(loop)).toThrow(/circular/);
  });

  it('uses toJSON (a Date is its ISO string)', () => {
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });
});
