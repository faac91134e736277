import { availableParallelism } from 'node:os';
import { type BenchDb, serviceOrigin } from '@redis-benchdb/db';
import type { BackupSchedule } from './publish/backups.js';
import type { PngOnRequest } from './publish/png-on-request.js';
import type { SiteBuilder } from './publish/site-builder.js';
import { invalidProxyEntry } from './trust-proxy.js';

export interface RateLimitOptions {
  /** API requests of any kind (not the site's files) from one client network (an IPv4 address, an IPv6 /64: network.ts), per minute. @default 600 */
  perIpPerMinute?: number;
  /** Submissions signed by one key, per minute. @default 300 */
  perKeyPerMinute?: number;
  /** Signing keys with no result stored yet that one network may bring in, per hour. @default 20 */
  newKeysPerNetworkPerHour?: number;
}

export interface AppOptions {
  /** The open database the service writes to and reads from; the caller opens and closes it. */
  db: BenchDb;
  /** The largest request body accepted; bigger ones are answered 413 without being read. @default 4 MiB */
  bodyLimitBytes?: number;
  rateLimit?: RateLimitOptions;
  /**
   * The reverse proxies in front of the service, as addresses or CIDR blocks (`10.0.0.5`,
   * `172.16.0.0/12`). A request from one of them is taken to come from the address its
   * X-Forwarded-For names (the nearest one not trusted), and the per-address rate limit counts that
   * address. Empty: the peer's own address, whatever X-Forwarded-For says (a client can write it).
   * @default []
   */
  trustProxy?: readonly string[];
  /** Time to receive a whole request, and the longest a connection may sit idle. @default 10_000 */
  requestTimeoutMs?: number;
  /** Log every request (pino, to stdout). @default false */
  logger?: boolean;
  /**
   * Worker threads that check submissions (parse, schemas, signature, histograms), off the event
   * loop. @default the CPUs available, less one for the event loop and the writer; at least 1
   */
  checkThreads?: number;
  /**
   * Submissions being checked or waiting for a thread, at most; one more is answered 503 with
   * retry-after. Their bodies may also take at most 8 × bodyLimitBytes. @default 256
   */
  maxQueuedSubmissions?: number;
  /** Worker threads that run the read API's queries off the event loop. @default as checkThreads */
  readThreads?: number;
  /** Reads running or waiting, at most; one more is answered 503 with retry-after. @default 64 */
  maxQueuedReads?: number;
  /** Reads running or waiting from one network (ipv6PrefixLength), at most. @default 8 */
  maxQueuedReadsPerNetwork?: number;
  /**
   * How many leading bits of an IPv6 address make the network that every per-address limit counts
   * (network.ts); an IPv4 address always counts alone. @default 64
   */
  ipv6PrefixLength?: number;
  /**
   * Free bytes the database's filesystem must keep: below it, submissions are answered 507 before
   * they are checked and health says not ready (storage-health.ts). @default 64 MiB
   */
  minFreeBytes?: number;
  /** The publishing service's parts (serve.ts makes them): the site it serves and rebuilds, its backups. */
  publish?: Publishing;
  /**
   * The address clients reach the service by (behind a proxy, its public https URL): a retraction must
   * name its origin, so that one signed for another service is refused here.
   * @default the address it listens on, and `localhost` for a loopback one
   */
  publicUrl?: string;
}

export interface Publishing {
  site?: SiteBuilder;
  backups?: BackupSchedule;
  /** Chart PNGs drawn on request, for the site served. */
  pngs?: PngOnRequest;
}

export type ResolvedAppOptions = Required<Omit<AppOptions, 'rateLimit' | 'publish' | 'publicUrl'>> & {
  rateLimit: Required<RateLimitOptions>;
  publish: Publishing;
  publicUrl: string | undefined;
};

export const DEFAULT_APP_OPTIONS = {
  // A result with a few hundred cells and their histograms is well under 1 MiB; 4 leaves room.
  bodyLimitBytes: 4 * 1024 * 1024,
  // A person or a CI fleet makes a key per machine, a few a day; a key per submission is an escape.
  rateLimit: { perIpPerMinute: 600, perKeyPerMinute: 300, newKeysPerNetworkPerHour: 20 },
  requestTimeoutMs: 10_000,
  logger: false,
  checkThreads: Math.max(1, availableParallelism() - 1),
  // A 5 KiB submission takes about a millisecond of checks: 256 wait a fraction of a second.
  maxQueuedSubmissions: 256,
  trustProxy: [],
  readThreads: Math.max(1, availableParallelism() - 1),
  // A list query of 100 results takes tens of ms on a thread: 64 drain within a few seconds.
  maxQueuedReads: 64,
  // Enough for a page-by-page client and a few tabs; a burst from one network waits in its own share.
  maxQueuedReadsPerNetwork: 8,
  ipv6PrefixLength: 64,
  // Room for a batch of submissions' WAL pages and a checkpoint, with margin.
  minFreeBytes: 64 * 1024 * 1024,
} as const satisfies Omit<ResolvedAppOptions, 'db' | 'publish' | 'publicUrl'>;

/** Defaults filled in and every number checked, once, before the server exists. */
export function resolveAppOptions(opts: AppOptions): ResolvedAppOptions {
  const o: ResolvedAppOptions = {
    ...DEFAULT_APP_OPTIONS,
    ...opts,
    rateLimit: { ...DEFAULT_APP_OPTIONS.rateLimit, ...opts.rateLimit },
    publish: opts.publish ?? {},
    publicUrl: opts.publicUrl,
  };
  if (o.publicUrl !== undefined) serviceOrigin(o.publicUrl);
  positiveInteger('bodyLimitBytes', o.bodyLimitBytes);
  positiveInteger('requestTimeoutMs', o.requestTimeoutMs);
  positiveInteger('checkThreads', o.checkThreads);
  positiveInteger('maxQueuedSubmissions', o.maxQueuedSubmissions);
  positiveInteger('readThreads', o.readThreads);
  positiveInteger('maxQueuedReads', o.maxQueuedReads);
  positiveInteger('maxQueuedReadsPerNetwork', o.maxQueuedReadsPerNetwork);
  if (!Number.isInteger(o.ipv6PrefixLength) || o.ipv6PrefixLength < 1 || o.ipv6PrefixLength > 128)
    throw new RangeError(`invalid ipv6PrefixLength: ${o.ipv6PrefixLength} (1 to 128)`);
  if (!Number.isSafeInteger(o.minFreeBytes) || o.minFreeBytes < 0)
    throw new RangeError(`invalid minFreeBytes: ${o.minFreeBytes} (a whole number of bytes, 0 or more)`);
  positiveInteger('rateLimit.perIpPerMinute', o.rateLimit.perIpPerMinute);
  positiveInteger('rateLimit.perKeyPerMinute', o.rateLimit.perKeyPerMinute);
  positiveInteger('rateLimit.newKeysPerNetworkPerHour', o.rateLimit.newKeysPerNetworkPerHour);
  for (const entry of o.trustProxy) {
    const why = invalidProxyEntry(entry);
    if (why !== null) throw new RangeError(`invalid trustProxy entry: ${entry} (${why})`);
  }
  return o;
}

function positiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new RangeError(`invalid ${name}: ${value} (a positive integer)`);
}
