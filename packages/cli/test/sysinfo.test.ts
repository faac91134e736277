import type { LaunchedServer } from '@redis-benchdb/engine';
import type { ResultV1 } from '@redis-benchdb/result';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  client,
  closedPort,
  describeResult,
  guardTarget,
  inNetns,
  netnsOk,
  netnsSkipNote,
  parseDoc,
  runCli,
  testServer,
} from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

// `redis-benchdb sysinfo`: the environment block a result records (client machine, server, link),
// against a real redis-server, a closed port, and with --no-server. Like `run`, every command line
// names its server (helpers/cli.ts guardTarget); the default address is tried in a network namespace.

type Environment = ResultV1['environment'];
/** What sysinfo prints without a server: the machine, and why the rest is missing. */
interface PartialEnvironment {
  client: Environment['client'];
  server: null;
  link: { kind: string; sameHost: boolean | null; rttUs: unknown; intrinsicLatencyUs: unknown };
  unknown: Record<string, string>;
}

cliFileHooks();

function expectMachine(env: { client: Environment['client'] }): void {
  expect(env.client.cpu.cores).toBeGreaterThanOrEqual(1);
  expect(env.client.cpu.threads).toBeGreaterThanOrEqual(env.client.cpu.cores!);
  expect(env.client.memory.totalBytes).toBeGreaterThan(0);
  expect(env.client.os.platform).toBe(process.platform);
  expect(env.client.os.arch).toBe(process.arch);
}

function parseJson<T>(r: { stdout: string }): T {
  expect(r.stdout.trimStart().startsWith('{')).toBe(true);
  return JSON.parse(r.stdout) as T;
}

describe('the test guard', () => {
  it('refuses a sysinfo that names no server, or 6379, even with --no-server', () => {
    expect(() => guardTarget(['sysinfo'])).toThrow(/names no server/);
    expect(() => guardTarget(['sysinfo', '--json', '--no-server'])).toThrow(/names no server/);
    expect(() => guardTarget(['sysinfo', '-p', '6379'])).toThrow(/6379/);
    expect(() => guardTarget(['sysinfo', '--port=6379'])).toThrow(/6379/);
    expect(() => guardTarget(['sysinfo', '-u', 'redis://127.0.0.1'])).toThrow(/URI/);
    expect(() => guardTarget(['run', '-t', 'get', '-u', 'redis://127.0.0.1:6379'])).toThrow();
    expect(() => guardTarget(['run', '-t', 'get'])).toThrow(/names no server/);
    expect(() => guardTarget(['sysinfo', '-p', '7001'])).not.toThrow();
    expect(() => guardTarget(['sysinfo', '-s', '/tmp/x.sock'])).not.toThrow();
    expect(() => guardTarget(['sysinfo', '--help'])).not.toThrow();
    expect(() => guardTarget(['verify', 'r.json'])).not.toThrow();
  });
});

describe('against a server', () => {
  let server: LaunchedServer;
  let redis: Redis;
  let port: string;

  beforeAll(async () => {
    server = await testServer();
    redis = await client(server);
    port = String(server.port);
  });

  it('--json prints the environment block: machine, server, link', async () => {
    const r = await runCli(['sysinfo', '-p', port, '--json']);
    expect(r.code, describeResult(r)).toBe(0);
    const env = parseJson<Environment>(r);
    expectMachine(env);
    expect(env.server.version).toBe(server.version);
    expect(env.server.product).toBe('redis');
    expect(env.server.persistence).toEqual({ save: '', appendonly: false, appendfsync: 'everysec' });
    expect(env.link.kind).toBe('tcp-loopback');
    expect(env.link.sameHost).toBe(true);
    expect(env.link.rttUs?.samples).toBeGreaterThan(0);
    expect(env.link.intrinsicLatencyUs?.durationMs).toBeGreaterThan(0);
    expect(env.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(typeof env.unknown).toBe('object');

    // The block a run records, for the same setup, has the same fingerprint.
    const run = await runCli(['run', '-p', port, '-t', 'ping_inline', '-n', '1000', '--json']);
    expect(run.code, describeResult(run)).toBe(0);
    const doc = parseDoc(run.stdout);
    expect(doc.environment.fingerprint).toBe(env.fingerprint);
    expect(Object.keys(doc.environment).sort()).toEqual(Object.keys(env).sort());
  });

  it('text mode prints Machine, Server and Link sections', async () => {
    const r = await runCli(['sysinfo', '-p', port]);
    expect(r.code, describeResult(r)).toBe(0);
    const sections = r.stdout.split('\n').filter((l) => /^\S/.test(l));
    expect(sections).toEqual(expect.arrayContaining(['Machine', 'Server', 'Link']));
    expect(sections.indexOf('Machine')).toBeLessThan(sections.indexOf('Server'));
    expect(sections.indexOf('Server')).toBeLessThan(sections.indexOf('Link'));
    expect(r.stdout).toMatch(/^\s+cpu\.cores\s+\d+$/m);
    expect(r.stdout).toMatch(new RegExp(`^\\s+version\\s+${server.version.replace(/\./g, '\\.')}$`, 'm'));
    expect(r.stdout).toMatch(/^\s+kind\s+tcp-loopback$/m);
    expect(r.stdout).not.toContain('(not connected)');
  });

  it('--no-server describes the machine without connecting, and says why the server is missing', async () => {
    const connections = async () =>
      Number(/total_connections_received:(\d+)/.exec(await redis.info('stats'))![1]);
    const before = await connections();
    const r = await runCli(['sysinfo', '-p', port, '--no-server', '--json']);
    expect(r.code, describeResult(r)).toBe(0);
    const env = parseJson<PartialEnvironment>(r);
    expectMachine(env);
    expect(env.server).toBeNull();
    expect(env.unknown.server).toMatch(/--no-server/);
    expect(env.link.kind).toBe('tcp-loopback');
    expect(env.link.rttUs).toBeNull();
    // Not a single connection reached the server.
    expect(await connections()).toBe(before);

    const t = await runCli(['sysinfo', '-p', port, '--no-server']);
    expect(t.code, describeResult(t)).toBe(0);
    expect(t.stdout).toMatch(/^Machine$/m);
    expect(t.stdout).toMatch(/^Server\n\s+\(not connected\)$/m);
    expect(t.stdout).toMatch(/^\s+server\s+no server described: not asked for \(--no-server\)$/m);
    expect(await connections()).toBe(before);
  });
});

describe('without a server', () => {
  it('-p <a closed port> still exits 0, describes the machine and says why the server is missing', async () => {
    const closed = String(await closedPort());
    const r = await runCli(['sysinfo', '-p', closed, '--json']);
    expect(r.code, describeResult(r)).toBe(0);
    const env = parseJson<PartialEnvironment>(r);
    expectMachine(env);
    expect(env.server).toBeNull();
    expect(env.unknown.server).toMatch(new RegExp(`127\\.0\\.0\\.1:${closed}.*nothing is listening`));

    const t = await runCli(['sysinfo', '-p', closed]);
    expect(t.code, describeResult(t)).toBe(0);
    expect(t.stdout).toMatch(/^Machine$/m);
    expect(t.stdout).toContain('(not connected)');
    expect(t.stdout).toMatch(/^Unknown$/m);
    expect(t.stdout).toContain('nothing is listening');
    expect(t.stderr).toBe('');
  });

  it.skipIf(!netnsOk)(
    `with no flags, at the default address where nothing listens (network namespace)${netnsSkipNote}`,
    async () => {
      const r = await inNetns(['sysinfo', '--json']);
      expect(r.code, describeResult(r)).toBe(0);
      const env = parseJson<PartialEnvironment>(r);
      expectMachine(env);
      expect(env.server).toBeNull();
      expect(env.unknown.server).toMatch(/127\.0\.0\.1:6379.*nothing is listening/);
      // sysinfo never starts a throwaway server.
      expect(r.stderr).not.toContain('throwaway');

      const n = await inNetns(['sysinfo', '--no-server']);
      expect(n.code, describeResult(n)).toBe(0);
      expect(n.stdout).toMatch(/^Machine$/m);
      expect(n.stdout).toContain('not asked for (--no-server)');
    },
  );
});
