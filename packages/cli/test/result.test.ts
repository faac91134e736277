import net from 'node:net';
import type { LaunchedServer } from '@redis-benchdb/engine';
import {
  environmentFingerprintV2,
  type ResultV1,
  validateResult,
  workloadFingerprint,
} from '@redis-benchdb/result';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeResult, parseDoc, runCli, testServer, waitFor } from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

// The result document `run --json` prints (redis-benchdb/result.v1, docs/RESULT-FORMAT.md), checked
// against a real redis-server: the trial statistics are recomputed here from the trials the
// document keeps, and the warnings are checked on servers set up to deserve them.

cliFileHooks();

// Computed here, independently of packages/result's stats.
function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function cvOf(xs: number[]): number {
  const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
  const variance = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1);
  return Math.sqrt(variance) / mean;
}

async function runJson(args: string[]): Promise<ResultV1> {
  const r = await runCli(['run', ...args, '--json']);
  expect(r.code, describeResult(r)).toBe(0);
  const doc = parseDoc(r.stdout);
  const valid = validateResult(doc);
  expect(valid.ok, JSON.stringify(valid)).toBe(true);
  return doc;
}

const codes = (doc: ResultV1) => doc.warnings.map((w) => w.code);

const FLAGS = ['-t', 'set,get', '-n', '5000', '-r', '1000', '-d', '256', '--trials', '3'];

/** The run, against a plain test server: made once, by whichever test needs it first. */
let plainRun: Promise<{ server: LaunchedServer; doc: ResultV1 }> | null = null;
function plain(): Promise<{ server: LaunchedServer; doc: ResultV1 }> {
  plainRun ??= (async () => {
    const server = await testServer();
    return { server, doc: await runJson(['-p', String(server.port), ...FLAGS]) };
  })();
  return plainRun;
}

describe('run --trials 3 --json', () => {
  let server: LaunchedServer;
  let doc: ResultV1;

  beforeAll(async () => {
    ({ server, doc } = await plain());
  });

  it('is a valid result.v1 with three trials per cell', () => {
    expect(doc.schema).toBe('redis-benchdb/result.v1');
    expect(doc.cells.map((c) => c.label)).toEqual(['SET', 'GET']);
    for (const c of doc.cells) {
      expect(c.trialCount).toBe(3);
      expect(c.trials).toHaveLength(3);
      for (const t of c.trials) {
        expect(t.completed).toBe(5000);
        expect(t.requested).toBe(5000);
        expect(t.opsPerSec).toBeGreaterThan(0);
        expect(t.latencyUs.count).toBe(t.completed);
        expect(t.crossCheck).toMatchObject({ status: 'match', observed: 5000 });
        expect(t.incomplete).toBe(false);
      }
      expect(c.workload).toMatchObject({ keyspaceSize: 1000, valueSizeBytes: { min: 256, max: 256 } });
      expect(c.incomplete).toBe(false);
    }
    expect(doc.incomplete).toBe(false);
  });

  it('opsPerSec is the median of the trials, inside its CI, with the trials’ coefficient of variation', () => {
    for (const c of doc.cells) {
      const ops = c.trials.map((t) => t.opsPerSec);
      const median = medianOf(ops);
      expect(c.opsPerSec.median, c.label).toBeCloseTo(median, 2);
      expect(c.opsPerSec.ci95Low).toBeLessThanOrEqual(c.opsPerSec.median);
      expect(c.opsPerSec.median).toBeLessThanOrEqual(c.opsPerSec.ci95High);
      // A bootstrap interval of the median never leaves the range of the trials.
      expect(c.opsPerSec.ci95Low).toBeGreaterThanOrEqual(Math.min(...ops) - 0.01);
      expect(c.opsPerSec.ci95High).toBeLessThanOrEqual(Math.max(...ops) + 0.01);
      const cv = cvOf(ops);
      expect(c.opsPerSec.cv).not.toBeNull();
      expect(Math.abs(c.opsPerSec.cv! - cv), `${c.label}: cv ${c.opsPerSec.cv} vs ${cv}`).toBeLessThan(1e-4);
      expect(c.unstable, `${c.label}: cv ${cv}`).toBe(cv > 0.1);
      // An unstable cell, and only that, has an UNSTABLE warning naming it.
      const unstableWarning = doc.warnings.find((w) => w.code === 'UNSTABLE' && w.cell === c.label);
      expect(unstableWarning !== undefined, JSON.stringify(doc.warnings)).toBe(c.unstable);
    }
  });

  it('latency histograms are merged over the trials, never averaged', () => {
    for (const c of doc.cells) {
      const completed = c.trials.reduce((a, t) => a + t.completed, 0);
      expect(c.latencyUs.count).toBe(completed);
      expect(c.completed).toBe(completed);
      expect(c.requested).toBe(15000);
      expect(c.latencyUs.maxUs).toBe(Math.max(...c.trials.map((t) => t.latencyUs.maxUs)));
      expect(c.latencyUs.minUs).toBe(Math.min(...c.trials.map((t) => t.latencyUs.minUs)));
    }
  });

  it('describes the environment: loopback link, the launched server’s version, a SAME_HOST warning', () => {
    const env = doc.environment;
    expect(env.link.kind).toBe('tcp-loopback');
    expect(env.link.sameHost).toBe(true);
    expect(env.link.rttUs?.samples).toBeGreaterThan(0);
    expect(env.link.intrinsicLatencyUs?.durationMs).toBeGreaterThan(0);
    expect(env.server.version).toBe(server.version);
    expect(env.server.product).toBe('redis');
    expect(env.client.cpu.cores).toBeGreaterThanOrEqual(1);
    expect(env.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Anyone can recompute it from the block it summarizes.
    expect(env.fingerprintVersion).toBe('env-v2');
    expect(env.fingerprint).toBe(environmentFingerprintV2(env));
    expect(codes(doc)).toContain('SAME_HOST');
    // A plain test server (no persistence, loglevel notice, no MONITOR) deserves none of these.
    expect(codes(doc)).not.toContain('PERSISTENCE_ON');
    expect(codes(doc)).not.toContain('DEBUG_LOGLEVEL');
    expect(codes(doc)).not.toContain('MONITOR_CLIENTS');
    for (const w of doc.warnings) expect(w.message.length).toBeGreaterThan(20);
  });

  it('workload fingerprints: per workload, stable across runs, changed by -P 4', async () => {
    const [set, get] = doc.cells;
    expect(set!.workloadFingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(set!.workloadFingerprint).not.toBe(get!.workloadFingerprint);
    for (const c of doc.cells) expect(c.workloadFingerprint).toBe(workloadFingerprint(c.workload));

    const again = await runJson(['-p', String(server.port), ...FLAGS]);
    expect(again.keyPrefix).not.toBe(doc.keyPrefix);
    expect(again.cells.map((c) => c.workloadFingerprint)).toEqual(
      doc.cells.map((c) => c.workloadFingerprint),
    );
    // The same setup has the same environment fingerprint, run to run.
    expect(again.environment.fingerprint).toBe(doc.environment.fingerprint);

    const p4 = await runJson(['-p', String(server.port), ...FLAGS.slice(0, -2), '-P', '4']);
    expect(p4.cells.map((c) => c.label)).toEqual(['SET', 'GET']);
    expect(p4.cells[0]!.workload.pipelineDepth).toBe(4);
    expect(p4.cells[0]!.workloadFingerprint).not.toBe(set!.workloadFingerprint);
    expect(p4.cells[1]!.workloadFingerprint).not.toBe(get!.workloadFingerprint);
    expect(p4.cells[0]!.workloadFingerprint).not.toBe(p4.cells[1]!.workloadFingerprint);
  });
});

describe('warnings on conditions the test sets up', () => {
  const SMALL = ['-t', 'set', '-n', '1000', '-r', '10', '-c', '5'];

  it('a server with appendonly yes: PERSISTENCE_ON, and another environment fingerprint', async () => {
    const aof = await testServer({ config: ['appendonly yes'] });
    const doc = await runJson(['-p', String(aof.port), ...SMALL]);
    expect(doc.environment.server.persistence.appendonly).toBe(true);
    const w = doc.warnings.find((x) => x.code === 'PERSISTENCE_ON');
    expect(w, JSON.stringify(doc.warnings)).toBeDefined();
    expect(w!.cell).toBeNull();
    expect(w!.message).toMatch(/AOF/);
    expect(codes(doc)).not.toContain('DEBUG_LOGLEVEL');
    // Persistence is part of what makes two setups comparable: the same binary without it has
    // another environment fingerprint.
    const other = (await plain()).doc;
    expect(codes(other)).not.toContain('PERSISTENCE_ON');
    expect(other.environment.server.persistence.appendonly).toBe(false);
    expect(other.environment.fingerprint).not.toBe(doc.environment.fingerprint);
  });

  it('a server with loglevel verbose: DEBUG_LOGLEVEL', async () => {
    const verbose = await testServer({ config: ['loglevel verbose'] });
    const doc = await runJson(['-p', String(verbose.port), ...SMALL]);
    expect(doc.environment.server.loglevel).toBe('verbose');
    const w = doc.warnings.find((x) => x.code === 'DEBUG_LOGLEVEL');
    expect(w, JSON.stringify(doc.warnings)).toBeDefined();
    expect(w!.message).toContain('verbose');
    expect(codes(doc)).not.toContain('PERSISTENCE_ON');
  });

  it('a MONITOR client connected during the run: MONITOR_CLIENTS', async () => {
    const server = await testServer();
    const monitor = net.connect({ host: '127.0.0.1', port: server.port });
    let first = '';
    let tail = '';
    let sawSet = false;
    // Read (and so drain) everything MONITOR streams: it sees the run's traffic too.
    monitor.setEncoding('utf8').on('data', (s: string) => {
      if (first.length < 64) first += s;
      tail = tail.slice(-200) + s;
      if (/"SET" "rbdb:[0-9a-f]{6}:/i.test(tail)) sawSet = true;
    });
    monitor.on('error', () => {});
    try {
      await new Promise<void>((resolve, reject) => {
        monitor.once('connect', resolve);
        monitor.once('error', reject);
      });
      monitor.write('MONITOR\r\n');
      await waitFor(
        () => first.startsWith('+OK\r\n'),
        () => `MONITOR to answer +OK (got ${JSON.stringify(first)})`,
      );
      const doc = await runJson(['-p', String(server.port), ...SMALL]);
      expect(doc.environment.server.monitorClients).toBeGreaterThanOrEqual(1);
      const w = doc.warnings.find((x) => x.code === 'MONITOR_CLIENTS');
      expect(w, JSON.stringify(doc.warnings)).toBeDefined();
      expect(w!.message).toMatch(/MONITOR/);
      // The monitor did see the run's SETs.
      await waitFor(() => sawSet, 'the MONITOR client to see a SET of the run');
      expect(doc.cells[0]!.completed).toBe(1000);
    } finally {
      monitor.destroy();
    }
  });
});
