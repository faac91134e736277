import { isIP } from 'node:net';

/**
 * Why `entry` is not an address or CIDR block that fastify's trustProxy (proxy-addr) can trust, or null
 * when it is. Checked at the edge so that a typo is a usage error naming the flag, not a start-up stack.
 */
export function invalidProxyEntry(entry: string): string | null {
  if (/^(true|\*|all)$/i.test(entry))
    return 'trusting every address would let any client choose its own address: name your proxies';
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return 'not an IP address or CIDR block';
  if (prefix === undefined) return null;
  const bits = family === 4 ? 32 : 128;
  const n = Number(prefix);
  if (!/^\d+$/.test(prefix) || n > bits) return `the prefix length must be 0 to ${bits}`;
  return null;
}

/** The comma-separated list of --trust-proxy, blanks dropped. */
export function splitProxyList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
