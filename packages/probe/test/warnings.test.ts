import { describe, expect, it } from 'vitest';
import { formatEnvironmentTable } from '../src/sysinfo-format.js';
import type { Link, Machine, Server } from '../src/types.js';
import { cellWarning, environmentWarnings } from '../src/warnings.js';

function machine(over: Partial<Machine> = {}): Machine {
  return {
    cpu: {
      model: 'Test CPU @ 3.00GHz',
      vendor: 'Intel',
      sockets: 1,
      cores: 4,
      threads: 8,
      smt: true,
      baseMhz: 3000,
      maxMhz: 4000,
      cacheL1dKiB: 48,
      cacheL2KiB: 1280,
      cacheL3KiB: 30720,
    },
    numa: { nodes: 1, clientNode: 0, clientCpus: '0-7', serverNode: null, serverCpus: null },
    memory: { totalBytes: 17179869184 },
    virtualization: { kind: 'bare-metal', hypervisor: null, container: null },
    cloud: { provider: null, instanceType: null },
    os: { platform: 'linux', distro: 'Debian GNU/Linux', release: '12', kernel: '6.1.0', arch: 'x64' },
    thp: { enabled: 'never', defrag: 'madvise' },
    cpuGovernor: 'performance',
    swapTotalBytes: 0,
    swapUsedBytes: 0,
    mitigations: { meltdown: 'Not affected', spectre_v2: 'Vulnerable' },
    unknown: {
      'numa.serverNode': 'no local server process id given',
      'numa.serverCpus': 'no local server process id given',
      'virtualization.hypervisor': 'not applicable: not a virtual machine',
      'virtualization.container': 'not applicable: no container marker',
      'cloud.provider': 'file /sys/class/dmi/id/sys_vendor absent',
      'cloud.instanceType': 'no cloud provider identified',
    },
    ...over,
  };
}

function server(over: Partial<Server> = {}): Server {
  return {
    product: 'redis',
    version: '7.4.1',
    gitSha: null,
    buildId: 'abc',
    mode: 'standalone',
    archBits: 64,
    allocator: 'jemalloc-5.3.0',
    ioThreads: 1,
    ioThreadsDoReads: false,
    persistence: { save: '', appendonly: false, appendfsync: 'everysec' },
    maxmemoryBytes: 0,
    maxmemoryPolicy: 'noeviction',
    multiplexingApi: 'epoll',
    os: 'Linux 6.1.0 x86_64',
    loglevel: 'notice',
    connectedClients: 1,
    monitorClients: 0,
    local: false,
    unknown: { gitSha: 'INFO reports redis_git_sha1:00000000' },
    ...over,
  };
}

const remote: Link = { kind: 'tcp-network', sameHost: null, rttUs: null, intrinsicLatencyUs: null };
const codes = (m: Machine, s: Server, link: Link = remote) =>
  environmentWarnings({ client: m, server: s, link }).map((w) => w.code);

describe('environmentWarnings', () => {
  it('says nothing about a clean environment', () => {
    expect(codes(machine(), server())).toEqual([]);
  });

  it('VM and CONTAINER, alone and together', () => {
    const v = (kind: Machine['virtualization']['kind']) =>
      machine({
        virtualization: {
          kind,
          hypervisor: kind?.startsWith('vm') ? 'KVM' : null,
          container: kind?.endsWith('container') ? 'docker' : null,
        },
      });
    expect(codes(v('vm'), server())).toEqual(['VM']);
    expect(codes(v('container'), server())).toEqual(['CONTAINER']);
    expect(codes(v('vm+container'), server())).toEqual(['VM', 'CONTAINER']);
    expect(codes(v(null), server())).toEqual([]);
    const [w] = environmentWarnings({ client: v('vm'), server: server(), link: remote });
    expect(w?.message).toMatch(/virtual machine \(KVM\)/);
    expect(w?.cell).toBeNull();
  });

  it('THP_ALWAYS only for always, naming which host it is about', () => {
    expect(codes(machine({ thp: { enabled: 'madvise', defrag: 'madvise' } }), server())).toEqual([]);
    expect(codes(machine({ thp: { enabled: null, defrag: null } }), server())).toEqual([]);
    const m = machine({ thp: { enabled: 'always', defrag: 'always' } });
    const [far] = environmentWarnings({ client: m, server: server(), link: remote });
    expect(far?.code).toBe('THP_ALWAYS');
    expect(far?.message).toMatch(/client machine \(the server host was not probed\)/);
    const near = environmentWarnings({
      client: m,
      server: server(),
      link: { ...remote, kind: 'tcp-loopback', sameHost: true },
    });
    expect(near.find((w) => w.code === 'THP_ALWAYS')?.message).toMatch(/client and server share it/);
  });

  it('SWAP_IN_USE only when swap is used', () => {
    expect(codes(machine({ swapTotalBytes: 1 << 30, swapUsedBytes: 0 }), server())).toEqual([]);
    expect(codes(machine({ swapUsedBytes: null }), server())).toEqual([]);
    const w = environmentWarnings({
      client: machine({ swapUsedBytes: 3 * 1024 * 1024 }),
      server: server(),
      link: remote,
    });
    expect(w.map((x) => x.code)).toEqual(['SWAP_IN_USE']);
    expect(w[0]?.message).toMatch(/^3\.0 MiB of swap/);
  });

  it('GOVERNOR_NOT_PERFORMANCE only for a known governor other than performance', () => {
    expect(codes(machine({ cpuGovernor: null }), server())).toEqual([]);
    expect(codes(machine({ cpuGovernor: 'powersave' }), server())).toEqual(['GOVERNOR_NOT_PERFORMANCE']);
    expect(codes(machine({ cpuGovernor: 'performance,powersave' }), server())).toEqual([
      'GOVERNOR_NOT_PERFORMANCE',
    ]);
  });

  it('PERSISTENCE_ON for RDB snapshots or AOF', () => {
    const p = (persistence: Server['persistence']) => codes(machine(), server({ persistence }));
    expect(p({ save: '', appendonly: false, appendfsync: 'everysec' })).toEqual([]);
    expect(p({ save: null, appendonly: null, appendfsync: null })).toEqual([]);
    expect(p({ save: '3600 1 300 100', appendonly: false, appendfsync: 'everysec' })).toEqual([
      'PERSISTENCE_ON',
    ]);
    expect(p({ save: '', appendonly: true, appendfsync: 'always' })).toEqual(['PERSISTENCE_ON']);
    const [w] = environmentWarnings({
      client: machine(),
      server: server({ persistence: { save: '900 1', appendonly: true, appendfsync: 'everysec' } }),
      link: remote,
    });
    expect(w?.message).toMatch(/RDB snapshots \(save "900 1"\) and AOF \(appendfsync everysec\)/);
  });

  it('SAME_HOST over loopback and unix sockets only', () => {
    expect(codes(machine(), server(), { ...remote, kind: 'tcp-loopback', sameHost: true })).toEqual([
      'SAME_HOST',
    ]);
    expect(codes(machine(), server(), { ...remote, kind: 'unix', sameHost: true })).toEqual(['SAME_HOST']);
    expect(codes(machine(), server(), remote)).toEqual([]);
  });

  it('MONITOR_CLIENTS when any client runs MONITOR', () => {
    expect(codes(machine(), server({ monitorClients: null }))).toEqual([]);
    expect(codes(machine(), server({ monitorClients: 2 }))).toEqual(['MONITOR_CLIENTS']);
  });

  it('DEBUG_LOGLEVEL for debug and verbose', () => {
    expect(codes(machine(), server({ loglevel: 'debug' }))).toEqual(['DEBUG_LOGLEVEL']);
    expect(codes(machine(), server({ loglevel: 'verbose' }))).toEqual(['DEBUG_LOGLEVEL']);
    expect(codes(machine(), server({ loglevel: 'warning' }))).toEqual([]);
    expect(codes(machine(), server({ loglevel: null }))).toEqual([]);
  });

  it('every message is one sentence', () => {
    const all = environmentWarnings({
      client: machine({
        virtualization: { kind: 'vm+container', hypervisor: 'KVM', container: 'docker' },
        thp: { enabled: 'always', defrag: 'always' },
        swapUsedBytes: 1,
        cpuGovernor: 'ondemand',
      }),
      server: server({
        persistence: { save: '1 1', appendonly: true, appendfsync: 'everysec' },
        monitorClients: 1,
        loglevel: 'debug',
      }),
      link: { ...remote, kind: 'unix', sameHost: true },
    });
    expect(all.map((w) => w.code)).toEqual([
      'VM',
      'CONTAINER',
      'THP_ALWAYS',
      'SWAP_IN_USE',
      'GOVERNOR_NOT_PERFORMANCE',
      'PERSISTENCE_ON',
      'SAME_HOST',
      'MONITOR_CLIENTS',
      'DEBUG_LOGLEVEL',
    ]);
    for (const w of all) {
      expect(w.message).toMatch(/\.$/);
      expect(w.message.slice(0, -1)).not.toMatch(/\.\s+[A-Z]/);
    }
  });
});

describe('cellWarning', () => {
  it('builds cell-level warnings with a fixed sentence and the detail', () => {
    const w = cellWarning('UNSTABLE', 'SET c=50 P=1', 'cv 0.14 over 5 trials.');
    expect(w.code).toBe('UNSTABLE');
    expect(w.cell).toBe('SET c=50 P=1');
    expect(w.message).toMatch(/^Throughput varied by more than 10% .* cv 0\.14 over 5 trials\.$/);
    const c = cellWarning('CLIENT_BOUND', 'GET c=500 P=16', '');
    expect(c.message).toMatch(/^The client, not the server, was the bottleneck/);
    expect(c.message).not.toMatch(/ $/);
  });
});

describe('formatEnvironmentTable', () => {
  it('prints aligned Machine, Server, Link and Unknown sections', () => {
    const text = formatEnvironmentTable({
      client: machine(),
      server: server(),
      link: {
        kind: 'tcp-loopback',
        sameHost: true,
        rttUs: null,
        intrinsicLatencyUs: { maxUs: 120.5, avgUs: 0.2, durationMs: 1000 },
      },
      unknown: { 'link.rttUs': 'round-trip time was not measured' },
    });
    const lines = text.split('\n');
    for (const h of ['Machine', 'Server', 'Link', 'Unknown']) expect(lines).toContain(h);
    expect(text).toMatch(/^ {2}cpu\.model\s+Test CPU @ 3\.00GHz$/m);
    expect(text).toMatch(/^ {2}memory\.totalBytes\s+16\.0 GiB \(17179869184\)$/m);
    expect(text).toMatch(/^ {2}cpu\.cacheL3KiB\s+30 MiB$/m);
    expect(text).toMatch(/^ {2}persistence\.save\s+""$/m);
    expect(text).toMatch(/^ {2}gitSha\s+unknown$/m);
    expect(text).toMatch(/^ {2}mitigations\s+2 listed; vulnerable: spectre_v2$/m);
    expect(text).toMatch(/^ {2}server\.gitSha\s+INFO reports/m);
    expect(text).toMatch(/^ {2}client\.cloud\.provider\s+file \/sys/m);
    expect(text).toMatch(/^ {2}link\.rttUs\s+round-trip/m);
    // Values start in one column.
    const valueCols = lines
      .filter((l) => /^ {2}\S+\s{2,}\S/.test(l))
      .map((l) => l.search(/(?<=\S)\s{2,}\S/) + (/(?<=\S)\s{2,}/.exec(l)?.[0].length ?? 0));
    expect(new Set(valueCols).size).toBe(1);
  });
});
