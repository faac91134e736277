import { type BenchSession, DEFAULT_CELL_OPTIONS, type Target } from '@redis-benchdb/engine';
import {
  collectServer,
  describeLink,
  measureIntrinsicLatency,
  probeMachine,
  sameHost,
} from '@redis-benchdb/probe';
import { ENV_FINGERPRINT_VERSION, environmentFingerprintV2 } from '@redis-benchdb/result';

/** How long the intrinsic-latency loop runs: long enough to see a scheduler hiccup, short enough not to matter. */
const INTRINSIC_LATENCY_MS = 1000;

/**
 * The environment block of a result: the client machine, the server from INFO and CONFIG, and the
 * link between them (its kind, a PING round-trip baseline, the client host's intrinsic latency).
 */
export async function collectEnvironment(
  session: BenchSession,
  target: Target,
  opts: { cloudMetadata?: boolean } = {},
) {
  const linkTarget = { host: target.host, socket: target.socket ?? null };
  const local = sameHost(linkTarget) === true;
  const redis = session.control.redis;
  // probe takes plain functions, not a client: it must not depend on ioredis.
  const server = await collectServer(
    {
      // INFO of another type than text is refused here, naming the server (ControlPlane.infoText).
      info: (section) => session.control.infoText(section),
      config: (...args) => redis.call('CONFIG', ...args),
      client: (...args) => redis.call('CLIENT', ...args),
    },
    local,
  );
  const info = await session.control.info('server').catch(() => ({}) as Record<string, string>);
  const serverPid = local && info.process_id ? Number(info.process_id) : null;
  // The cloud metadata service is asked only on request: a run must not reach out unasked.
  const client = await probeMachine({ serverPid, allowNetwork: opts.cloudMetadata === true });
  // The round trip of one connection, one request at a time: what the link adds to every request.
  let rttUs: { p50Us: number; p99Us: number; samples: number } | null = null;
  let rttFailure: string | null = null;
  try {
    const ping = await session.runCell({
      ...DEFAULT_CELL_OPTIONS,
      test: 'PING_MBULK',
      connections: 1,
      pipelineDepth: 1,
      requests: 2000,
    });
    rttUs = { p50Us: ping.latencyUs.p50Us, p99Us: ping.latencyUs.p99Us, samples: ping.completed };
  } catch (err) {
    rttFailure = `PING baseline failed: ${(err as Error).message}`;
  }
  const { link, unknown } = describeLink(linkTarget, {
    rttUs,
    intrinsicLatencyUs: measureIntrinsicLatency(INTRINSIC_LATENCY_MS),
  });
  if (rttFailure) unknown['link.rttUs'] = rttFailure;
  return {
    fingerprint: environmentFingerprintV2({ client, server, link }),
    fingerprintVersion: ENV_FINGERPRINT_VERSION,
    client,
    server,
    link,
    unknown,
  };
}
