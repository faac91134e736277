// Behind a reverse proxy every request comes from the proxy's address. --trust-proxy names the proxies:
// a request from one of them counts against the client its X-Forwarded-For names; without the flag, or
// from a peer not named, X-Forwarded-For is what any client can write, and changes nothing.
import { describe, expect, it } from 'vitest';
import { parseServerArgs, UsageError } from '../src/index.js';
import { request, spawnService, tempDbPath } from './fixtures.js';

/** The statuses of GET /api/v1/health sent with each X-Forwarded-For in turn (undefined: none). */
async function statuses(url: string, forwardedFor: (string | undefined)[]): Promise<number[]> {
  const out: number[] = [];
  for (const xff of forwardedFor) {
    const headers: Record<string, string> = xff === undefined ? {} : { 'x-forwarded-for': xff };
    out.push((await request(`${url}/api/v1/health`, { headers })).status);
  }
  return out;
}

/** The service with two requests a minute per address, started from its bin (the tests' peer is 127.0.0.1). */
const service = (extra: string[] = []) => spawnService(tempDbPath(), ['--per-ip-per-minute', '2', ...extra]);

describe('--trust-proxy', () => {
  it('from a trusted proxy, the rate limit counts the client X-Forwarded-For names', async () => {
    const s = await service(['--trust-proxy', '10.9.9.9,127.0.0.1']);
    const client = '203.0.113.7';
    expect(await statuses(s.url, [client, client, client])).toEqual([200, 200, 429]);
    // Another client behind the same proxy has its own two.
    expect(await statuses(s.url, ['203.0.113.8', '203.0.113.8'])).toEqual([200, 200]);
    // A client that sends its own X-Forwarded-For gets it prepended to by the proxy: the nearest
    // address the trusted proxy did not write is the one counted, so the forgery buys nothing.
    expect(await statuses(s.url, [`198.51.100.1, ${client}`])).toEqual([429]);
    // The proxy's own requests (no header) count against the proxy.
    expect(await statuses(s.url, [undefined, undefined, undefined])).toEqual([200, 200, 429]);
    const limited = await request(`${s.url}/api/v1/health`, { headers: { 'x-forwarded-for': client } });
    expect(limited.json.error).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('without it, a spoofed X-Forwarded-For changes nothing: every request counts against its peer', async () => {
    const s = await service();
    expect(await statuses(s.url, ['203.0.113.1', '203.0.113.2', '203.0.113.3', undefined])).toEqual([
      200, 200, 429, 429,
    ]);
  });

  it('from a peer it does not name, X-Forwarded-For changes nothing either', async () => {
    const s = await service(['--trust-proxy', '10.0.0.0/8,::1']);
    expect(await statuses(s.url, ['203.0.113.1', '203.0.113.2', '203.0.113.3'])).toEqual([200, 200, 429]);
  });

  it('takes addresses and CIDR blocks, and refuses anything else, saying what to give', () => {
    const parsed = parseServerArgs(['--trust-proxy', '10.0.0.5, 172.16.0.0/12,fd00::/8'], {});
    expect(parsed.help === false && parsed.options.trustProxy).toEqual([
      '10.0.0.5',
      '172.16.0.0/12',
      'fd00::/8',
    ]);
    expect(parsed.help === false && 'trustProxy' in parsed.options).toBe(true);
    const without = parseServerArgs([], {});
    expect(without.help === false && 'trustProxy' in without.options).toBe(false);
    for (const [text, says] of [
      ['true', /invalid --trust-proxy: true \(trusting every address would let any client choose its own/],
      [
        'proxy.local',
        /invalid --trust-proxy: proxy\.local \(not an IP address or CIDR block; give your proxies' addresses/,
      ],
      ['10.0.0.0/33', /invalid --trust-proxy: 10\.0\.0\.0\/33 \(the prefix length must be 0 to 32/],
      [',', /invalid --trust-proxy: empty/],
    ] as const) {
      expect(() => parseServerArgs(['--trust-proxy', text], {})).toThrow(UsageError);
      expect(() => parseServerArgs(['--trust-proxy', text], {})).toThrow(says);
    }
  });
});
