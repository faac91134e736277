import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { describeLink, isLoopbackHost, linkKind, measureIntrinsicLatency, sameHost } from '../src/link.js';

describe('linkKind', () => {
  it.each([
    ['127.0.0.1', 'tcp-loopback'],
    ['127.1.2.3', 'tcp-loopback'],
    ['localhost', 'tcp-loopback'],
    ['LOCALHOST.', 'tcp-loopback'],
    ['redis.localhost', 'tcp-loopback'],
    ['::1', 'tcp-loopback'],
    ['[::1]', 'tcp-loopback'],
    ['0:0:0:0:0:0:0:1', 'tcp-loopback'],
    ['::ffff:127.0.0.1', 'tcp-loopback'],
    ['10.0.0.5', 'tcp-network'],
    ['128.0.0.1', 'tcp-network'],
    ['::2', 'tcp-network'],
    ['redis.example.com', 'tcp-network'],
    ['localhost.example.com', 'tcp-network'],
  ])('%s → %s', (host, kind) => {
    expect(linkKind({ host })).toBe(kind);
  });

  it('a unix socket wins over the host', () => {
    expect(linkKind({ host: '10.0.0.5', socket: '/tmp/redis.sock' })).toBe('unix');
    expect(linkKind({ host: '10.0.0.5', socket: null })).toBe('tcp-network');
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
  });
});

describe('sameHost', () => {
  it('is true over loopback and unix sockets, null for an address that is not ours', () => {
    expect(sameHost({ host: '127.0.0.1' })).toBe(true);
    expect(sameHost({ host: 'x', socket: '/tmp/r.sock' })).toBe(true);
    expect(sameHost({ host: '203.0.113.7' })).toBeNull();
    expect(sameHost({ host: 'redis.example.com' })).toBeNull();
  });

  const own = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4');
  it.runIf(own)(
    "is true for one of this machine's own interface addresses (skipped: no external IPv4 interface here)",
    () => {
      expect(sameHost({ host: own!.address })).toBe(true);
    },
  );

  it('describeLink lists what was not measured', () => {
    const { link, unknown } = describeLink({ host: '203.0.113.7' });
    expect(link).toEqual({ kind: 'tcp-network', sameHost: null, rttUs: null, intrinsicLatencyUs: null });
    expect(Object.keys(unknown).sort()).toEqual(['link.intrinsicLatencyUs', 'link.rttUs', 'link.sameHost']);
  });
});

describe('measureIntrinsicLatency', () => {
  it('returns finite numbers with max >= avg and spins for at least the duration', () => {
    const t0 = performance.now();
    const r = measureIntrinsicLatency(300);
    const wall = performance.now() - t0;
    for (const v of Object.values(r)) expect(Number.isFinite(v)).toBe(true);
    expect(r.avgUs).toBeGreaterThan(0);
    expect(r.maxUs).toBeGreaterThanOrEqual(r.avgUs);
    expect(r.durationMs).toBeGreaterThanOrEqual(300);
    // The reported duration is the spin's own: within the call's wall time. No fixed upper bound:
    // on a busy machine the scheduler may stretch any spin (the test once failed at 610 ms).
    expect(r.durationMs).toBeLessThanOrEqual(wall + 1);
    expect(wall).toBeGreaterThanOrEqual(299);
    // One spin is a fraction of a microsecond to a few: far below the duration.
    expect(r.avgUs).toBeLessThan(100);
  });
});
