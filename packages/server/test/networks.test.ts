// Issue 30 item 8 on the real service: every per-address limit counts a network (an IPv4 address, an
// IPv6 /64 by default), and one network may bring in only so many new signing keys an hour, so that
// neither fresh IPv6 addresses nor fresh keys escape the limits.
import { generateSigningKey } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { networkOf } from '../src/network.js';
import { body, otherRun, request, spawnService, tempDbPath } from './fixtures.js';

const health = async (url: string, xff: string) =>
  (await request(`${url}/api/v1/health`, { headers: { 'x-forwarded-for': xff } })).status;

describe('networkOf', () => {
  it('an IPv4 address is itself; an IPv6 address its first N bits; a mapped IPv4 the IPv4', () => {
    expect(networkOf('203.0.113.7', 64)).toBe('203.0.113.7');
    expect(networkOf('::ffff:203.0.113.7', 64)).toBe('203.0.113.7');
    expect(networkOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd', 64)).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(networkOf('2001:db8:1:2::1', 64)).toBe(networkOf('2001:db8:1:2:ffff::9', 64));
    expect(networkOf('2001:db8:1:2::1', 64)).not.toBe(networkOf('2001:db8:1:3::1', 64));
    expect(networkOf('2001:db8:1:2ff::1', 56)).toBe('2001:db8:1:200:0:0:0:0/56');
    expect(networkOf('::1', 128)).toBe('0:0:0:0:0:0:0:1/128');
    expect(networkOf('fe80::1%eth0', 64)).toBe('fe80:0:0:0:0:0:0:0/64');
  });
});

describe('rate limits by network', () => {
  it('IPv6 behind a trusted proxy: one /64 is one bucket, another /64 its own; --ipv6-prefix 128 counts each address', async () => {
    const s = await spawnService(tempDbPath(), ['--per-ip-per-minute', '2', '--trust-proxy', '127.0.0.1']);
    // Today's code gave each /128 a bucket of its own: 200, 200, 200.
    const sameNet = ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff:ffff:ffff:ffff'];
    expect([
      await health(s.url, sameNet[0]!),
      await health(s.url, sameNet[1]!),
      await health(s.url, sameNet[2]!),
    ]).toEqual([200, 200, 429]);
    const limited = await request(`${s.url}/api/v1/health`, { headers: { 'x-forwarded-for': sameNet[0]! } });
    expect(limited.json.error?.message).toContain('from this network (2001:db8:1:2:0:0:0:0/64)');
    expect(await health(s.url, '2001:db8:1:3::1')).toBe(200);

    const each = await spawnService(tempDbPath(), [
      '--per-ip-per-minute',
      '2',
      '--trust-proxy',
      '127.0.0.1',
      '--ipv6-prefix',
      '128',
    ]);
    const statuses = [];
    for (const a of sameNet) statuses.push(await health(each.url, a));
    expect(statuses).toEqual([200, 200, 200]);
  });

  it('a network brings in at most --new-keys-per-hour new keys; known keys and other networks are not held', async () => {
    const s = await spawnService(tempDbPath(), ['--new-keys-per-hour', '3', '--trust-proxy', '127.0.0.1']);
    const url = `${s.url}/api/v1/results`;
    const from = (xff: string) => ({ 'x-forwarded-for': xff });
    const send = async (n: number, k: ReturnType<typeof generateSigningKey>, xff: string) =>
      request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...from(xff) },
        body: body(otherRun(n), k),
      });
    const keys = Array.from({ length: 5 }, () => generateSigningKey());
    const net = '2001:db8:7:7::';
    for (let i = 0; i < 3; i++) expect((await send(i + 1, keys[i]!, `${net}${i + 1}`)).status).toBe(201);
    // Today's code stored this too: a fresh key escaped the per-key limit every time.
    const refused = await send(4, keys[3]!, `${net}99`);
    expect({ status: refused.status, code: refused.json.error?.code }, refused.text).toEqual({
      status: 429,
      code: 'RATE_LIMITED',
    });
    expect(refused.json.error?.message).toContain('has brought in 3 new signing keys this hour');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // A key that has results here is not new.
    expect((await send(5, keys[0]!, `${net}5`)).status).toBe(201);
    // Another network brings in its own.
    expect((await send(6, keys[3]!, '203.0.113.50')).status).toBe(201);
    // And once stored, that key is known to every network.
    expect((await send(7, keys[3]!, `${net}7`)).status).toBe(201);
  });

  it('the flags are checked at the edge', async () => {
    const { parseServerArgs } = await import('../src/index.js');
    expect(() => parseServerArgs(['--ipv6-prefix', '129'], {})).toThrow('invalid --ipv6-prefix: 129');
    const parsed = parseServerArgs(['--ipv6-prefix', '48', '--new-keys-per-hour', '5'], {});
    expect(parsed.help === false && parsed.options.ipv6PrefixLength).toBe(48);
    expect(parsed.help === false && parsed.options.rateLimit?.newKeysPerNetworkPerHour).toBe(5);
  });
});
