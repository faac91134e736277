import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network a client address counts as, for every per-address limit: an IPv4 address is itself
 * (ISPs give a customer one), an IPv6 address is its first `ipv6PrefixLength` bits, `/64` by
 * default, since a customer routinely gets a /64 or more and may send from any of its 2⁶⁴ addresses
 * (issue 30 item 8: counting each /128 let one host take a fresh bucket per request). An IPv4 address
 * mapped into IPv6 (`::ffff:192.0.2.1`, what a dual-stack socket reports) is the IPv4 address.
 * Anything else (a Unix socket's empty address) is its own network.
 */
export function networkOf(address: string, ipv6PrefixLength: number): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address) || !isIPv6(address)) return address;
  const groups = expand(address.replace(/%.*$/, ''));
  const out: string[] = [];
  let bits = ipv6PrefixLength;
  for (const g of groups) {
    if (bits <= 0) out.push('0');
    else if (bits >= 16) out.push(g.toString(16));
    else out.push(((g >> (16 - bits)) << (16 - bits)).toString(16));
    bits -= 16;
  }
  return `${out.join(':')}/${ipv6PrefixLength}`;
}

/** An IPv6 address's eight 16-bit groups (a trailing dotted IPv4 part read as two of them). */
function expand(address: string): number[] {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}
