/**
 * How the client reaches the server, and the latency floor of the client machine itself.
 *
 * The Redis docs: unix sockets can give ~50% more throughput than TCP loopback on Linux, a real
 * network adds ~200 µs per round trip, and a client on the server's host competes with it for
 * CPUs. So results over different link kinds are different experiments.
 */

import { isIP } from 'node:net';
import os from 'node:os';
import type { IntrinsicLatency, Link, LinkKind } from './types.js';

export interface LinkTarget {
  host: string;
  socket?: string | null;
}

export function linkKind(target: LinkTarget): LinkKind {
  if (target.socket) return 'unix';
  return isLoopbackHost(target.host) ? 'tcp-loopback' : 'tcp-network';
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped and bracketed forms) and localhost names. */
export function isLoopbackHost(host: string): boolean {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h.startsWith('::ffff:') && isIP(h.slice(7)) === 4) h = h.slice(7);
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) !== 6) return false;
  // The URL parser writes IPv6 in canonical compressed form: 0:0:0:0:0:0:0:1 → ::1, and an
  // IPv4-mapped 127.x.y.z → ::ffff:7fxx:yyzz.
  const canonical = new URL(`http://[${h}]/`).hostname.slice(1, -1);
  return canonical === '::1' || /^::ffff:7f[0-9a-f]{2}:/.test(canonical);
}

/**
 * Whether client and server share a machine: true over loopback or a unix socket, or when the
 * host is one of this machine's own addresses. Otherwise null, not false: a network address
 * can still lead back here (a container's published port, NAT), so it proves nothing.
 */
export function sameHost(target: LinkTarget): boolean | null {
  const kind = linkKind(target);
  if (kind !== 'tcp-network') return true;
  const h = target.host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (isIP(h) === 0) return null;
  for (const addrs of Object.values(os.networkInterfaces())) {
    for (const a of addrs ?? []) if (a.address.toLowerCase() === h) return true;
  }
  return null;
}

/**
 * The redis-cli --intrinsic-latency method: spin on a tiny computation, timestamping each run;
 * the longest run is the longest time the kernel (or hypervisor) did not let this process run.
 * No benchmark can show a latency below that. Synchronous and CPU-bound by design, so keep it
 * short: it blocks the event loop and saturates one core for `durationMs`.
 */
export function measureIntrinsicLatency(durationMs = 1000): IntrinsicLatency {
  const ms = Number.isFinite(durationMs) ? Math.min(Math.max(durationMs, 1), 60_000) : 1000;
  const budget = BigInt(Math.round(ms * 1e6));
  const start = process.hrtime.bigint();
  let maxNs = 0n;
  let runs = 0;
  let sink = 0;
  let now = start;
  while (now - start < budget) {
    const t0 = process.hrtime.bigint();
    sink = computeSomethingFast(sink);
    now = process.hrtime.bigint();
    const lat = now - t0;
    runs++;
    if (lat > maxNs) maxNs = lat;
  }
  const elapsedNs = Number(now - start);
  // Keep the computation observable so it cannot be optimised away.
  if (sink === -1) console.log(sink);
  return {
    maxUs: round3(Number(maxNs) / 1000),
    avgUs: round3(elapsedNs / runs / 1000),
    durationMs: round3(elapsedNs / 1e6),
  };
}

/** Like redis-cli's compute_something_fast: a little arithmetic, a few hundred ns. */
function computeSomethingFast(seed: number): number {
  let x = seed | 0;
  for (let i = 0; i < 100; i++) x = (x * 31 + i) & 0xffff;
  return x;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/**
 * The link block, and the environment-level `unknown` entries for what was not measured.
 * `rttUs` comes from the caller's PING loop; `intrinsicLatencyUs` from measureIntrinsicLatency.
 */
export function describeLink(
  target: LinkTarget,
  measured: { rttUs?: Link['rttUs']; intrinsicLatencyUs?: IntrinsicLatency | null } = {},
): { link: Link; unknown: Record<string, string> } {
  const unknown: Record<string, string> = {};
  const same = sameHost(target);
  if (same === null)
    unknown['link.sameHost'] =
      'the server is reached over the network at an address that is not on this machine: it may still be the same host (NAT, published container port)';
  const rttUs = measured.rttUs ?? null;
  if (rttUs === null) unknown['link.rttUs'] = 'round-trip time was not measured';
  const intrinsic = measured.intrinsicLatencyUs ?? null;
  if (intrinsic === null) unknown['link.intrinsicLatencyUs'] = 'intrinsic latency was not measured';
  return { link: { kind: linkKind(target), sameHost: same, rttUs, intrinsicLatencyUs: intrinsic }, unknown };
}
