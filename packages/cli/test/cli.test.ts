import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { LaunchedServer } from '@redis-benchdb/engine';
import { canonicalJson, validateResult } from '@redis-benchdb/result';
import type { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  client,
  closedPort,
  describeResult,
  inNetns,
  netnsOk,
  netnsSkipNote,
  parseDoc,
  readEnvelope,
  redisServersOnPort,
  runCli,
  sleep,
  spawnCli,
  stopServers,
  tempDir,
  testServer,
  waitFor,
} from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

// Integration tests of the built CLI (dist/bin.js) against throwaway redis-servers. Every command
// line names its server with -p/-s (helpers/cli.ts refuses one that does not): the production
// server on 127.0.0.1:6379 never sees a request. The tests of the default address run the CLI in
// a fresh network namespace, where 127.0.0.1:6379 is not that server. Every CLI gets a temp
// REDIS_BENCHDB_CONFIG_DIR (helpers/cli.ts), so no signing key is made in ~/.config.
//
// Every run first describes the environment (about 1.2 s: a 1 s intrinsic-latency loop and a
// PING baseline) before its first cell: waits below key on what the run prints or writes, never
// on a fixed delay from the start.

const execFileP = promisify(execFile);

cliFileHooks();

describe('against a shared test server', () => {
  let server: LaunchedServer;
  let redis: Redis;
  let port: string;

  beforeAll(async () => {
    server = await testServer();
    redis = await client(server);
    port = String(server.port);
  });

  it('--json prints one JSON document on stdout and nothing else', async () => {
    const r = await runCli([
      'run',
      '-t',
      'set,get',
      '-n',
      '5000',
      '-r',
      '100',
      '-c',
      '10',
      '-p',
      port,
      '--json',
    ]);
    expect(r.code, describeResult(r)).toBe(0);
    const doc = parseDoc(r.stdout);
    expect(r.stdout.endsWith('}\n')).toBe(true);
    const valid = validateResult(doc);
    expect(valid.ok, JSON.stringify(valid)).toBe(true);
    expect(doc.schema).toBe('redis-benchdb/result.v1');
    expect(doc.cells.map((c) => c.test)).toEqual(['SET', 'GET']);
    expect(doc.cells.map((c) => c.label)).toEqual(['SET', 'GET']);
    for (const c of doc.cells) {
      // -t runs one trial per cell by default: the median is that trial's throughput.
      expect(c.trialCount).toBe(1);
      expect(c.trials).toHaveLength(1);
      expect(c.trials[0]!.opsPerSec).toBeGreaterThan(0);
      expect(c.opsPerSec).toEqual({
        median: c.trials[0]!.opsPerSec,
        ci95Low: c.trials[0]!.opsPerSec,
        ci95High: c.trials[0]!.opsPerSec,
        cv: null,
      });
      expect(c.unstable).toBe(false);
      expect(c.workloadFingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(c.latencyUs.p50Us).toBeGreaterThan(0);
      expect(c.latencyUs.p99Us).toBeGreaterThanOrEqual(c.latencyUs.p50Us);
      expect(c.latencyUs.maxUs).toBeGreaterThanOrEqual(c.latencyUs.p99Us);
      expect(c.latencyUs.count).toBe(5000);
      expect(c.crossCheck.status).toBe('match');
      expect(c.crossCheck.observed).toBe(5000);
      expect(c.requested).toBe(5000);
      expect(c.completed).toBe(c.requested);
      expect(c.incomplete).toBe(false);
      expect(c.error).toBeNull();
      expect(c.errors).toEqual({});
      expect(c.workload).toMatchObject({
        connections: 10,
        keyspaceSize: 100,
        valueSizeBytes: { min: 3, max: 3 },
      });
    }
    // GET runs after SET over the same 100 keys: every read hits.
    expect(doc.cells[1]!.hitRatio).toBe(1);
    expect(doc.keyPrefix).toMatch(/^rbdb:[0-9a-f]{6}:$/);
    expect(doc.target).toMatchObject({ host: '127.0.0.1', port: server.port, socket: null, tls: false });
    // A launch is reported on stderr only; the document has no such field.
    expect(doc).not.toHaveProperty('launchedServer');
    expect(r.stderr).not.toContain('throwaway');
    expect(doc.suite).toBeNull();
    expect(doc.interrupted).toBe(false);
    expect(doc.incomplete).toBe(false);
    expect(doc.error).toBeNull();
    expect(doc.environment.server.version).toBe(server.version);
    expect(doc.environment.link.kind).toBe('tcp-loopback');
    expect(doc.warnings.map((w) => w.code)).toContain('SAME_HOST');
    expect(doc.cleanup).toEqual({ removedKeys: 100, error: null });
    // The run's keys are gone.
    expect(await redis.dbsize()).toBe(0);
  });

  it('--csv: the header is exactly the one redis-benchmark --csv prints, rows have as many columns', async () => {
    const bench = await execFileP('redis-benchmark', ['-p', port, '-t', 'set', '-n', '1000', '--csv']);
    const benchHeader = bench.stdout.split(/\r?\n/)[0]!;
    expect(benchHeader).toMatch(/^"test","rps"/);

    const r = await runCli(['run', '-t', 'set,get', '-n', '3000', '-c', '10', '-p', port, '--csv']);
    expect(r.code, describeResult(r)).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(benchHeader);
    expect(lines).toHaveLength(3);
    const cols = (line: string) => line.slice(1, -1).split('","');
    const width = cols(benchHeader).length;
    expect(width).toBe(8);
    const rows = lines.slice(1).map(cols);
    expect(rows.map((row) => row[0])).toEqual(['SET', 'GET']);
    for (const row of rows) {
      expect(row).toHaveLength(width);
      for (const v of row.slice(1)) expect(v).toMatch(/^\d+\.\d+$/);
      expect(Number(row[1])).toBeGreaterThan(0); // rps
      expect(Number(row[4])).toBeGreaterThan(0); // p50
    }
    // redis-benchmark's own data row has the same shape.
    expect(cols(bench.stdout.split(/\r?\n/)[1]!)).toHaveLength(width);
    // Its SET left a key 'key:__rand_int__' on the test server; ours removed all of its own.
    expect(await redis.keys('rbdb:*')).toEqual([]);
  });

  it('text output: one line per test on stdout, status lines on stderr', async () => {
    const r = await runCli(['run', '-t', 'set,get', '-n', '3000', '-c', '10', '-p', port]);
    expect(r.code, describeResult(r)).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^SET: [\d.]+ requests per second, p50=[\d.]+ msec, p99=[\d.]+ msec, p99\.9=/);
    expect(lines[1]).toMatch(/^GET: [\d.]+ requests per second, p50=[\d.]+ msec, p99=[\d.]+ msec, p99\.9=/);
    expect(r.stderr).toContain('describing the machine, the server and the link');
    expect(r.stderr).toMatch(
      new RegExp(`2 tests against 127\\.0\\.0\\.1:${port} \\(redis ${server.version}\\)`, 'i'),
    );
    expect(r.stderr).toMatch(/removed 1 keys? under rbdb:[0-9a-f]{6}:\*/);
    // Warnings go to stderr with the status lines, never between the result lines.
    expect(r.stderr).toMatch(/^warning SAME_HOST: /m);
    expect(r.stdout).not.toContain('warning');
  });

  it('-q drops p99', async () => {
    const r = await runCli(['run', '-t', 'set,get', '-n', '3000', '-c', '10', '-p', port, '-q']);
    expect(r.code, describeResult(r)).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^SET: [\d.]+ requests per second, p50=[\d.]+ msec/);
    expect(lines[1]).toMatch(/^GET: [\d.]+ requests per second, p50=[\d.]+ msec/);
    for (const l of lines) expect(l).not.toContain('p99');
  });

  it('a custom command runs as given, with its keys prefixed and removed afterwards', async () => {
    const before = await redis.dbsize();
    const r = await runCli([
      'run',
      '-n',
      '1000',
      '-r',
      '10',
      '-p',
      port,
      '--json',
      'HSET',
      'h:__rand_int__',
      'f',
      '__data__',
    ]);
    expect(r.code, describeResult(r)).toBe(0);
    const doc = parseDoc(r.stdout);
    expect(doc.cells).toHaveLength(1);
    const cell = doc.cells[0]!;
    expect(cell.label).toBe('HSET h:__rand_int__ f __data__');
    expect(cell.completed).toBe(1000);
    expect(cell.errors).toEqual({});
    expect(cell.incomplete).toBe(false);
    expect(cell.crossCheck).toMatchObject({ status: 'match', observed: 1000, commands: ['hset'] });
    expect(doc.cleanup).toEqual({ removedKeys: 10, error: null });
    expect(await redis.dbsize()).toBe(before);
    expect(await redis.keys(`${doc.keyPrefix}*`)).toEqual([]);
  });

  it('--out FILE writes a signed envelope whose payload is the document --json prints', async () => {
    const dir = await tempDir();
    const configDir = await tempDir('rbdb-config-');
    const file = path.join(dir, 'result.json');
    const r = await runCli(
      ['run', '-t', 'get', '-n', '2000', '-c', '10', '-p', port, '--json', '--out', file],
      { configDir },
    );
    expect(r.code, describeResult(r)).toBe(0);
    const printed = parseDoc(r.stdout);
    const { envelope, payload } = await readEnvelope(file);
    expect(envelope.schema).toBe('redis-benchdb/envelope.v1');
    // The payload is the canonical JSON of the very document printed on stdout.
    expect(payload).toEqual(printed);
    expect(envelope.payload).toBe(canonicalJson(printed));
    expect(payload.cells[0]!.completed).toBe(2000);
    expect(envelope.keyFingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The first --out made a signing key in the config dir, and said so.
    expect(r.stderr).toContain(`created a signing key at ${path.join(configDir, 'signing-key.pem')}`);
    expect(r.stderr).toContain(envelope.keyFingerprint);
    expect((await readdir(configDir)).filter((f) => f !== 'data').sort()).toEqual([
      'signing-key.pem',
      'signing-key.pub.pem',
    ]);
    // Written atomically: no temp file is left beside it.
    expect(await readdir(dir)).toEqual(['result.json']);

    // In text mode too, and stderr says where it went; the key is reused, not made again.
    const file2 = path.join(dir, 'text.json');
    const t = await runCli(
      ['run', '-t', 'get', '-n', '2000', '-c', '10', '-r', '5000', '--preload', '-p', port, '--out', file2],
      { configDir },
    );
    expect(t.code, describeResult(t)).toBe(0);
    expect(t.stdout).toMatch(/^GET: /);
    // What the preload cost, which is most of a short run of the suite (issue 41).
    expect(t.stderr).toMatch(
      /^the run took [\d.]+ s, [\d.]+ s of it writing 5,000 keys for the GET cells to read/m,
    );
    expect(t.stderr).toContain(`wrote ${file2}, signed by ${envelope.keyFingerprint}`);
    expect(t.stderr).not.toContain('created a signing key');
    const second = await readEnvelope(file2);
    expect(second.envelope.keyFingerprint).toBe(envelope.keyFingerprint);
    expect(second.payload.cells.map((c) => c.test)).toEqual(['GET']);
    expect(second.payload.cells[0]!.completed).toBe(2000);
    const v = await runCli(['verify', file, file2], { configDir });
    expect(v.code, describeResult(v)).toBe(0);
  });

  it('-t nosuch exits 2 with "error: unknown test" and the allowed tests', async () => {
    const r = await runCli(['run', '-t', 'nosuch', '-p', port]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: unknown test "nosuch": expected one of .*ping_inline.*lrange/m);
  });

  it('an unknown flag and a bad number exit 2', async () => {
    const a = await runCli(['run', '-t', 'get', '-p', port, '--bogus']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("unknown option '--bogus'");
    const b = await runCli(['run', '-t', 'get', '-p', port, '-c', '0']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/error: invalid clients \(-c\): "0"/);
  });
});

describe('over a unix socket', () => {
  it('-s SOCKET runs against the socket', async () => {
    const dir = await tempDir();
    const sock = path.join(dir, 'redis.sock');
    const server = await testServer({ port: -1, unixSocket: sock });
    const r = await runCli(['run', '-t', 'ping_mbulk,incr', '-n', '2000', '-c', '5', '-s', sock, '--json']);
    expect(r.code, describeResult(r)).toBe(0);
    const doc = parseDoc(r.stdout);
    expect(doc.target.socket).toBe(sock);
    expect(doc.environment.link.kind).toBe('unix');
    expect(doc.warnings.map((w) => w.code)).toContain('SAME_HOST');
    expect(doc.cells.map((c) => [c.test, c.completed, c.crossCheck.status])).toEqual([
      ['PING_MBULK', 2000, 'match'],
      ['INCR', 2000, 'match'],
    ]);
    expect(doc.cleanup.removedKeys).toBe(1);
    expect(await (await client(server)).dbsize()).toBe(0);
  });
});

describe('help and connection failures', () => {
  it('--help exits 0, says -h is the host and shows the examples', async () => {
    const r = await runCli(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/-h, --host <host>\s+server hostname/);
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('redis-benchdb run -t set,get -n 1000000 -P 16 -q');
    expect(r.stdout).not.toMatch(/-h, --help/);
  });

  it('-v prints the version', async () => {
    const r = await runCli(['-v']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(
      JSON.parse(readFileSync(path.join(BIN, '../../package.json'), 'utf8')).version,
    );
  });

  it('-p <a closed port> exits 1: nothing is listening', async () => {
    const port = await closedPort();
    const r = await runCli(['run', '-t', 'get', '-n', '1000', '-p', String(port), '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(`^error: cannot connect to 127\\.0\\.0\\.1:${port}: nothing is listening`, 'm'),
    );
    // An explicit port is never replaced by a throwaway server.
    expect(r.stderr).not.toContain('throwaway');
  });

  it('-h <a name that does not resolve> exits 1 and says to check -h, not a bare ENOTFOUND', async () => {
    // .invalid never resolves (RFC 6761), with or without a network.
    const r = await runCli(['run', '-t', 'get', '-n', '1000', '-h', 'no.such.host.invalid', '-p', '6390']);
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stderr).toMatch(
      /^error: cannot connect to no\.such\.host\.invalid:6390: no host of that name was found \(.*ENOTFOUND.*\)\. Check the spelling of -h, or give an IP address/m,
    );
  });

  it('a wrong or missing -a against a server with requirepass exits 1 and points at -a', async () => {
    const server = await testServer({ config: ['requirepass s3cret'] });
    const port = String(server.port);
    const wrong = await runCli(['run', '-t', 'get', '-n', '1000', '-p', port, '-a', 'wrong']);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toMatch(/WRONGPASS/);
    expect(wrong.stderr).toMatch(/\(-a\)/);
    const missing = await runCli(['run', '-t', 'get', '-n', '1000', '-p', port]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/NOAUTH.*pass it with -a/);
    const right = await runCli([
      'run',
      '-t',
      'get',
      '-n',
      '1000',
      '-c',
      '5',
      '-p',
      port,
      '-a',
      's3cret',
      '-q',
    ]);
    expect(right.code, describeResult(right)).toBe(0);
    expect(right.stdout).toMatch(/^GET: /);
  });
});

describe('Ctrl-C', () => {
  const SEED: Record<string, { type: string; value: unknown }> = {
    foo: { type: 'string', value: 'bar' },
    'key:000000000001': { type: 'string', value: 'precious' },
    'key:__rand_int__': { type: 'string', value: 'from redis-benchmark' },
    'counter:000000000000': { type: 'string', value: '41' },
    mylist: { type: 'list', value: ['a', 'b', 'c'] },
    myhash: { type: 'hash', value: { f: 'v', g: 'w' } },
    myset: { type: 'set', value: ['m1', 'm2'] },
    // Another run's prefix: only this run's prefix may be removed.
    'rbdb:000000:key:000000000001': { type: 'string', value: 'another run' },
  };

  async function seed(redis: Redis): Promise<void> {
    for (const [k, { type, value }] of Object.entries(SEED)) {
      if (type === 'string') await redis.set(k, value as string);
      else if (type === 'list') await redis.rpush(k, ...(value as string[]));
      else if (type === 'hash') await redis.hset(k, value as Record<string, string>);
      else if (type === 'set') await redis.sadd(k, ...(value as string[]));
    }
    expect(await redis.dbsize()).toBe(Object.keys(SEED).length);
  }

  async function expectSeedIntact(redis: Redis): Promise<void> {
    for (const [k, { type, value }] of Object.entries(SEED)) {
      expect(await redis.type(k), k).toBe(type);
      if (type === 'string') expect(await redis.get(k), k).toBe(value);
      else if (type === 'list') expect(await redis.lrange(k, 0, -1), k).toEqual(value);
      else if (type === 'hash') expect(await redis.hgetall(k), k).toEqual(value);
      else if (type === 'set') expect((await redis.smembers(k)).sort(), k).toEqual(value);
    }
    expect(await redis.dbsize()).toBe(Object.keys(SEED).length);
  }

  afterEach(async () => {
    await stopServers();
  });

  /** Two cells (SET, then LPUSH) of 120 s each: a run that is still going when the signal comes. */
  const interruptibleRun = (port: number, ...extra: string[]) => [
    'run',
    '-t',
    'set,lpush',
    '-r',
    '1000',
    '-c',
    '10',
    '--duration',
    '120',
    '-p',
    String(port),
    ...extra,
  ];

  it('SIGINT stops the run with exit 130, removes its keys and leaves every other key as it was', async () => {
    const server = await testServer();
    const redis = await client(server);
    await seed(redis);
    const cli = spawnCli(interruptibleRun(server.port));
    // The start line comes after the environment is described (~1.2 s), just before the first cell.
    await waitFor(
      () => /keys under rbdb:[0-9a-f]{6}:\*/.test(cli.stderr()),
      () => `the start line (stderr so far: ${cli.stderr()})`,
    );
    // The run is writing: not a vacuous check of the cleanup below.
    await waitFor(
      async () => {
        if (cli.child.exitCode !== null) throw new Error(`the run ended early:\n${cli.stderr()}`);
        return (await redis.dbsize()) > Object.keys(SEED).length + 50;
      },
      () => `the run to write keys (stderr so far: ${cli.stderr()})`,
    );
    const sentAt = Date.now();
    cli.child.kill('SIGINT');
    const r = await cli.done;
    // Well short of the 120 s the cell would run: it stopped on the signal, however busy the machine.
    expect(Date.now() - sentAt).toBeLessThan(60_000);
    expect(r.code, describeResult(r)).toBe(130);
    expect(r.stderr).toContain('interrupted');
    const removed = /removed (\d+) keys under rbdb:[0-9a-f]{6}:\*/.exec(r.stderr);
    expect(removed, r.stderr).not.toBeNull();
    expect(Number(removed![1])).toBeGreaterThan(0);
    // The SET cell was cut short and says so; LPUSH never ran.
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^SET: .*INCOMPLETE/);
    await expectSeedIntact(redis);
  });

  it('SIGINT with --json prints a document marked interrupted and incomplete', async () => {
    const server = await testServer();
    const redis = await client(server);
    await seed(redis);
    const seeded = Object.keys(SEED).length;
    const cli = spawnCli(interruptibleRun(server.port, '--json'));
    // --json prints no start line: wait until the run's keys appear.
    await waitFor(
      async () => {
        if (cli.child.exitCode !== null) throw new Error(`the run ended early:\n${cli.stderr()}`);
        return (await redis.dbsize()) > seeded + 50;
      },
      () => `the run to write keys (stderr so far: ${cli.stderr()})`,
    );
    const sentAt = Date.now();
    cli.child.kill('SIGINT');
    const r = await cli.done;
    // Well short of the 120 s the cell would run: it stopped on the signal, however busy the machine.
    expect(Date.now() - sentAt).toBeLessThan(60_000);
    expect(r.code, describeResult(r)).toBe(130);
    const doc = parseDoc(r.stdout);
    expect(doc.interrupted).toBe(true);
    expect(doc.incomplete).toBe(true);
    expect(doc.cells).toHaveLength(1);
    expect(doc.cells[0]!.test).toBe('SET');
    expect(doc.cells[0]!.incomplete).toBe(true);
    expect(doc.cells[0]!.completed).toBeGreaterThan(0);
    expect(doc.cells[0]!.trials).toHaveLength(1);
    expect(doc.cells[0]!.trials[0]!.incomplete).toBe(true);
    // An interrupted run's document is still a valid result.v1.
    expect(validateResult(doc).ok).toBe(true);
    expect(doc.cleanup.error).toBeNull();
    expect(doc.cleanup.removedKeys).toBeGreaterThan(0);
    await expectSeedIntact(redis);
  });
});

describe('the server goes away mid-run', () => {
  afterEach(async () => {
    await stopServers();
  });

  /** Stop the server once the run is writing; `stoppedAt` is when it was gone. */
  async function killMidRun(extra: string[]) {
    const server = await testServer();
    const cli = spawnCli([
      'run',
      '-t',
      'set',
      '-c',
      '10',
      '--duration',
      '120',
      '-p',
      String(server.port),
      ...extra,
    ]);
    const redis = await client(server);
    await waitFor(
      async () => {
        if (cli.child.exitCode !== null) throw new Error(`the run ended early:\n${cli.stderr()}`);
        // Without -r, SET writes one key (redis-benchmark's) beside the run's marker and alive
        // key (written at start): a third key means the run has started its cell.
        return (await redis.dbsize()) > 2;
      },
      () => `the run to write keys (stderr so far: ${cli.stderr()})`,
    );
    await sleep(300);
    await server.stop();
    const stoppedAt = Date.now();
    const r = await cli.done;
    return { ...r, sinceStopMs: Date.now() - stoppedAt };
  }

  it('exits 1, says the connection was lost and the result is partial', async () => {
    const r = await killMidRun([]);
    expect(r.code, describeResult(r)).toBe(1);
    // It gives up at once rather than wait out --duration 120 (the bound leaves room for a busy machine).
    expect(r.sinceStopMs).toBeLessThan(60_000);
    expect(r.stderr).toMatch(/lost a connection to the server mid-run/);
    expect(r.stderr).toMatch(/result is partial/);
    // The keys could not be removed: it says how to remove them, with this run's address.
    expect(r.stderr).toMatch(
      /remove them with: .* cleanup -h 127\.0\.0\.1 -p \d+ --prefix rbdb:[0-9a-f]{6}: --yes/,
    );
    expect(r.stdout).toMatch(/^SET: .*INCOMPLETE: lost a connection/);
  });

  it('with --json, the cell is marked incomplete with the error', async () => {
    const r = await killMidRun(['--json']);
    expect(r.code, describeResult(r)).toBe(1);
    const doc = parseDoc(r.stdout);
    expect(doc.interrupted).toBe(false);
    expect(doc.incomplete).toBe(true);
    expect(doc.cells).toHaveLength(1);
    expect(doc.cells[0]!.incomplete).toBe(true);
    expect(doc.cells[0]!.error).toMatch(/lost a connection/);
    expect(doc.cells[0]!.completed).toBeGreaterThan(0);
    expect(r.sinceStopMs).toBeLessThan(60_000);
    expect(doc.cleanup.removedKeys).toBeNull();
    expect(doc.cleanup.error).toMatch(/could not remove/);
    expect(validateResult(doc).ok).toBe(true);
  });
});

// Keys a run writes must be removed whatever ends it. Here the second cell fails before it starts
// (the server refuses RPUSH, which LRANGE's list preparation needs) after the first cell wrote
// 100 keys.
describe('an error between cells', () => {
  afterEach(async () => {
    await stopServers();
  });

  // An exception from runCell (here prepare()'s RPUSH) must not skip the cleanup: the run stops
  // at the failing cell, keeps the cells before it, and still removes every key it wrote.
  it('still removes the keys the earlier cells wrote', async () => {
    const server = await testServer({ config: ['rename-command RPUSH ""'] });
    const redis = await client(server);
    const r = await runCli([
      'run',
      '-t',
      'set,lrange_100',
      '-n',
      '2000',
      '-r',
      '100',
      '-c',
      '10',
      '-p',
      String(server.port),
    ]);
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stdout).toMatch(/^SET: /);
    expect(r.stderr).toMatch(/error: LRANGE_100: .*the cells before it are kept/);
    expect(r.stderr).toMatch(/removed 100 keys under rbdb:[0-9a-f]{6}:\*/);
    expect(await redis.keys('rbdb:*')).toEqual([]);
  });
});

// The default address: with no -h/-p/-s, `run` uses 127.0.0.1:6379 and starts a throwaway server
// when nothing answers. 6379 is taken on this machine, so these run the CLI in a new network
// namespace with only a loopback interface (helpers/cli.ts inNetns).
describe('the default address (in a network namespace)', () => {
  it.skipIf(!netnsOk)(
    `with nothing on 127.0.0.1:6379, run starts a throwaway redis-server and stops it${netnsSkipNote}`,
    async () => {
      const r = await inNetns(['run', '-t', 'ping_inline', '-n', '2000', '--json']);
      expect(r.code, describeResult(r)).toBe(0);
      // The launch is reported on stderr only (the document has no launchedServer field).
      const launch = /started a throwaway redis-server (\S+) on 127\.0\.0\.1:(\d+) for this run/.exec(
        r.stderr,
      );
      expect(launch, r.stderr).not.toBeNull();
      const [, version, launchedPort] = launch!;
      const installed = /v=(\S+)/.exec((await execFileP('redis-server', ['--version'])).stdout)![1];
      expect(version).toBe(installed);
      const doc = parseDoc(r.stdout);
      expect(doc).not.toHaveProperty('launchedServer');
      expect(doc.target.port).toBe(Number(launchedPort));
      expect(doc.target.port).not.toBe(6379);
      expect(doc.environment.server.version).toBe(version);
      expect(doc.cells[0]).toMatchObject({ test: 'PING_INLINE', completed: 2000, incomplete: false });
      // Stopped at the end.
      expect(redisServersOnPort(doc.target.port)).toEqual([]);
    },
  );

  it.skipIf(!netnsOk)(`--no-launch fails instead: exit 1, nothing is listening${netnsSkipNote}`, async () => {
    const r = await inNetns(['run', '-t', 'ping_inline', '-n', '2000', '--no-launch']);
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stderr).toMatch(/cannot connect to 127\.0\.0\.1:6379: nothing is listening/);
    expect(r.stderr).not.toContain('throwaway');
  });

  it.skipIf(!netnsOk)(
    `an explicit -p 6379 is never replaced by a throwaway server${netnsSkipNote}`,
    async () => {
      const r = await inNetns(['run', '-t', 'ping_inline', '-n', '2000', '-p', '6379']);
      expect(r.code, describeResult(r)).toBe(1);
      expect(r.stderr).toMatch(/nothing is listening/);
      expect(r.stderr).not.toContain('throwaway');
    },
  );
});
