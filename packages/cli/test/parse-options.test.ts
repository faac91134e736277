import { buildProgram } from '@redis-benchdb/command';
import { DEFAULT_CELL_OPTIONS } from '@redis-benchdb/engine';
import { planCells, type RunPlan } from '@redis-benchdb/runner';
import { describe, expect, it } from 'vitest';
import runDef, { parseRunFlags, type RunFlags } from '../src/commands/run.js';
import { CliError } from '../src/errors.js';
import { parseUri } from '../src/options/target.js';
import { parseSize } from '../src/options/values.js';
import { PROGRAM } from '../src/program.js';

/** Parse a `run` command line the way bin.ts does (commander and the flags' parsers, then parseRunFlags), without running. */
async function plan(...argv: string[]): Promise<RunPlan> {
  let captured: { flags: RunFlags; command: string[] } | undefined;
  const program = buildProgram(PROGRAM, [runDef], async (_def, flags, command) => {
    captured = { flags: flags as RunFlags, command: command as string[] };
    return 0;
  });
  const before = process.exitCode;
  try {
    await program.parseAsync(['node', 'redis-benchdb', 'run', ...argv]);
  } finally {
    process.exitCode = before;
  }
  if (!captured) throw new Error('the run action was not called');
  return parseRunFlags(captured.flags, captured.command);
}

/** The CliError parseRunFlags throws (fails the test if it throws nothing or something else). */
async function usageError(...argv: string[]): Promise<CliError> {
  try {
    await plan(...argv);
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    return err as CliError;
  }
  throw new Error(`expected "${argv.join(' ')}" to be rejected`);
}

const ALL_TESTS = [
  'ping_inline',
  'ping_mbulk',
  'set',
  'get',
  'incr',
  'lpush',
  'rpush',
  'lpop',
  'rpop',
  'sadd',
  'hset',
  'spop',
  'zadd',
  'zpopmin',
  'lrange_100',
  'lrange_300',
  'lrange_500',
  'lrange_600',
  'mset',
  'xadd',
];

describe('target flags', () => {
  it('maps -h -p -a --user --dbnum to the target, as redis-benchmark means them', async () => {
    const p = await plan(
      '-t',
      'get',
      '-h',
      'db.example',
      '-p',
      '7001',
      '-a',
      'pw',
      '--user',
      'bob',
      '--dbnum',
      '5',
    );
    expect(p.target).toMatchObject({ host: 'db.example', port: 7001, password: 'pw', user: 'bob', db: 5 });
    expect(p.target.socket).toBeUndefined();
    expect(p.target.tls).toBeUndefined();
    expect(p.targetIsDefault).toBe(false);
  });

  it('-h is the host, never help', async () => {
    const p = await plan('-t', 'ping_inline', '-h', 'redis.internal');
    expect(p.target.host).toBe('redis.internal');
    expect(p.target.port).toBe(6379);
  });

  it('-s sets a unix socket and makes the target explicit', async () => {
    const p = await plan('-t', 'get', '-s', '/tmp/redis.sock');
    expect(p.target.socket).toBe('/tmp/redis.sock');
    expect(p.targetIsDefault).toBe(false);
  });

  it('with no server flag the target is the default 127.0.0.1:6379 db 0 and targetIsDefault is true', async () => {
    const p = await plan();
    expect(p.target).toEqual({ host: '127.0.0.1', port: 6379, db: 0, resp3: false });
    expect(p.targetIsDefault).toBe(true);
  });

  it('--timeout sets the reply deadline in seconds (0: wait forever); without it the engine default applies', async () => {
    expect((await plan('-t', 'get', '-p', '7000', '--timeout', '2.5')).target.replyTimeoutSec).toBe(2.5);
    expect((await plan('-t', 'get', '-p', '7000', '--timeout', '0')).target.replyTimeoutSec).toBe(0);
    expect((await plan('-t', 'get', '-p', '7000')).target.replyTimeoutSec).toBeUndefined();
  });

  it.each([
    [['-p', '7000']],
    [['-h', '127.0.0.1']],
    [['-s', '/tmp/x.sock']],
    [['-u', 'redis://127.0.0.1:6379']],
  ])('%j makes targetIsDefault false, even when it names the default address', async (args) => {
    expect((await plan(...args)).targetIsDefault).toBe(false);
  });

  it('-u redis://user:pw@host:7000/3 sets user, password, host, port and db', async () => {
    const p = await plan('-t', 'get', '-u', 'redis://user:pw@host:7000/3');
    expect(p.target).toMatchObject({ host: 'host', port: 7000, user: 'user', password: 'pw', db: 3 });
    expect(p.target.tls).toBeFalsy();
  });

  it('-u rediss:// turns TLS on; the port defaults to 6379', async () => {
    const p = await plan('-t', 'get', '-u', 'rediss://secure.example');
    expect(p.target.tls).toBeTruthy();
    expect(p.target).toMatchObject({ host: 'secure.example', port: 6379, db: 0 });
  });

  it('parseUri: a lone user-info word is the password (redis-cli semantics), percent-decoded', () => {
    expect(parseUri('redis://s%40cret@h')).toMatchObject({ host: 'h', password: 's@cret' });
    expect(parseUri('redis://s%40cret@h').user).toBeUndefined();
    expect(parseUri('redis://:pw@h:1234')).toEqual({ host: 'h', port: 1234, password: 'pw' });
    expect(parseUri('redis://[::1]:7000')).toMatchObject({ host: '::1', port: 7000 });
  });

  it('flags given beside -u override the URI', async () => {
    const p = await plan(
      '-t',
      'get',
      '-u',
      'redis://u:pw@host:7000/3',
      '-p',
      '7100',
      '--dbnum',
      '1',
      '-a',
      'other',
    );
    expect(p.target).toMatchObject({ host: 'host', port: 7100, db: 1, user: 'u', password: 'other' });
  });

  it.each([['http://host:1'], ['not a uri']])('-u %s is a usage error', async (uri) => {
    const err = await usageError('-t', 'get', '-u', uri);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/URI/);
  });

  it('--user without -a is a usage error that says to add -a', async () => {
    const err = await usageError('-t', 'get', '--user', 'bob');
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/-a/);
  });

  it('--user with a password from -u is accepted', async () => {
    const p = await plan('-t', 'get', '-u', 'redis://:pw@h', '--user', 'bob');
    expect(p.target).toMatchObject({ user: 'bob', password: 'pw' });
  });

  it('--tls with --cacert/--sni/--insecure builds the TLS options', async () => {
    const p = await plan('-t', 'get', '--tls', '--cacert', 'ca.pem', '--sni', 'name', '--insecure');
    expect(p.target.tls).toEqual({ caFile: 'ca.pem', servername: 'name', insecure: true });
  });

  // Once a bug: --insecure and --sni counted only beside --tls/--cacert/--cert/--key, so with
  // `-u rediss://...` they were dropped silently and the certificate was still verified.
  it('-u rediss:// with --insecure keeps --insecure', async () => {
    const p = await plan('-t', 'get', '-u', 'rediss://host', '--insecure', '--sni', 'name');
    expect(p.target.tls).toMatchObject({ insecure: true, servername: 'name' });
  });
});

describe('cells', () => {
  it('-t set,get gives two cells with redis-benchmark defaults when nothing else is given', async () => {
    const p = await plan('-t', 'set,get', '-p', '7000');
    expect(p.cells).not.toBeNull();
    expect(p.cells!.map((c) => c.test)).toEqual(['SET', 'GET']);
    for (const c of p.cells!) {
      expect(c.connections).toBe(50);
      expect(c.requests).toBe(100_000);
      expect(c.valueSizeBytes).toBe(3);
      expect(c.pipelineDepth).toBe(1);
      expect(c.pipelineMode).toBe('batch');
      expect(c.keyspaceSize).toBe(1);
      expect(c.durationSec).toBeUndefined();
      expect(c.threads).toBe(1);
    }
    expect(p.cells![0]).toEqual({ ...DEFAULT_CELL_OPTIONS, test: 'SET' });
  });

  it('maps -c -n -d -P -r to connections, requests, value size, pipeline depth, key space', async () => {
    const p = await plan('-t', 'get', '-c', '7', '-n', '1234', '-d', '100', '-P', '16', '-r', '1000');
    expect(p.cells).toHaveLength(1);
    expect(p.cells![0]).toMatchObject({
      test: 'GET',
      connections: 7,
      requests: 1234,
      valueSizeBytes: 100,
      pipelineDepth: 16,
      keyspaceSize: 1000,
    });
  });

  it('test names are case-insensitive, trimmed and de-duplicated, in the order given', async () => {
    const p = await plan('-t', 'GET, set,get');
    expect(p.cells!.map((c) => c.test)).toEqual(['GET', 'SET']);
  });

  it('lrange expands to the four LRANGE tests', async () => {
    const p = await plan('-t', 'lrange');
    expect(p.cells!.map((c) => c.test)).toEqual(['LRANGE_100', 'LRANGE_300', 'LRANGE_500', 'LRANGE_600']);
  });

  it('every test redis-benchmark names is accepted by -t', async () => {
    const p = await plan('-t', ALL_TESTS.join(','));
    expect(p.cells!.map((c) => c.test.toLowerCase())).toEqual(ALL_TESTS);
  });

  it.each([
    ['4k', 4096],
    ['4K', 4096],
    ['64KiB', 65536],
    ['1kb', 1024],
    ['2m', 2 * 1024 * 1024],
    ['256', 256],
    ['0', 0],
    ['16-1024', [16, 1024]],
    ['1k-4k', [1024, 4096]],
  ])('-d %s is %j bytes', async (d, bytes) => {
    const p = await plan('-t', 'set', '-d', d);
    expect(p.cells![0]!.valueSizeBytes).toEqual(bytes);
    expect(parseSize(d)).toEqual(bytes);
  });

  it.each(['abc', '4x', '-5', '1.5k', ''])('-d "%s" is a usage error naming the value size', async (d) => {
    const err = await usageError('-t', 'set', '-d', d);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/value size/);
  });

  it('--duration replaces -n: the cell has durationSec and no request count', async () => {
    const p = await plan('-t', 'set', '--duration', '2.5', '--warmup', '1');
    expect(p.cells![0]!.durationSec).toBe(2.5);
    expect(p.cells![0]!.warmupSec).toBe(1);
    expect(p.cells![0]!.requests).toBeUndefined();
  });

  it('-n with --duration is a usage error', async () => {
    const err = await usageError('-t', 'set', '-n', '1000', '--duration', '5');
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/-n/);
    expect(err.message).toMatch(/--duration/);
  });

  it('an unknown test is a CliError with exit code 2 that names the allowed tests', async () => {
    const err = await usageError('-t', 'set,nosuch');
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/unknown test "nosuch"/);
    for (const t of ALL_TESTS) expect(err.message).toContain(t);
    expect(err.message).toContain('lrange');
  });

  it('a custom command becomes one CUSTOM cell with its words as given', async () => {
    const p = await plan('-n', '500', '-r', '10', 'SET', '__key__', '__data__');
    expect(p.cells).toHaveLength(1);
    expect(p.cells![0]).toMatchObject({
      test: 'CUSTOM',
      command: ['SET', '__key__', '__data__'],
      requests: 500,
      keyspaceSize: 10,
    });
    const direct = await parseRunFlags({}, ['SET', '__key__', '__data__']);
    expect(direct.cells).toEqual([
      { ...DEFAULT_CELL_OPTIONS, test: 'CUSTOM', command: ['SET', '__key__', '__data__'] },
    ]);
  });

  it('--ratio 1:10 is one SET:GET cell', async () => {
    const p = await plan('--ratio', '1:10', '-n', '1000');
    expect(p.cells).toHaveLength(1);
    expect(p.cells![0]).toMatchObject({ test: 'SET:GET', setGetRatio: [1, 10], requests: 1000 });
  });

  it.each(['1-10', '1:', 'a:b', '1:10:2'])('--ratio %s is a usage error', async (r) => {
    const err = await usageError('--ratio', r);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/--ratio/);
  });

  it('no -t and no command: cells null (the suite), profile quick, flags become suite overrides', async () => {
    const p = await plan('-c', '10', '--threads', '2', '--seed', '7', '-n', '2000');
    expect(p.cells).toBeNull();
    expect(p.profile).toBe('quick');
    expect(p.targetIsDefault).toBe(true);
    expect(p.common).toEqual({ connections: 10, threads: 2, seed: 7, requests: 2000 });
  });

  it('no flags at all: no suite overrides, so the suite keeps its own parameters', async () => {
    const p = await plan();
    expect(p.cells).toBeNull();
    expect(p.common).toEqual({});
  });

  it('--profile is passed through', async () => {
    expect((await plan('--profile', 'full')).profile).toBe('full');
  });

  it("the full profile's SLO cells are searches within the default budget; an ad hoc --slo names every cell", async () => {
    const full = planCells(await plan('--profile', 'full'));
    const searches = full.cells.filter((c) => c.slo !== null);
    expect(searches.map((c) => [c.label, c.slo])).toEqual(
      ['GET', 'SET'].map((t) => [
        `${t} p99<=1ms`,
        { objectives: [{ percentile: 99, maxUs: 1000 }], budgetSec: 60 },
      ]),
    );
    expect(full.suite).toEqual({ id: 'standard-v1', profile: 'full' });
    const adHoc = planCells(await plan('-t', 'get,set', '--slo', 'p99<=2ms'));
    expect(adHoc.cells.map((c) => [c.label, c.slo?.objectives])).toEqual([
      ['GET p99<=2ms', [{ percentile: 99, maxUs: 2000 }]],
      ['SET p99<=2ms', [{ percentile: 99, maxUs: 2000 }]],
    ]);
    expect(planCells(await plan('-t', 'get')).cells[0]!.slo).toBeNull();
  });
});

describe('bad numbers are usage errors naming the flag', () => {
  it.each([
    [['-c', '0'], '-c'],
    [['-c', '-3'], '-c'],
    [['-P', 'abc'], '-P'],
    [['-P', '1.5'], '-P'],
    [['-n', '0'], '-n'],
    [['-n', 'many'], '-n'],
    [['-r', '0'], '-r'],
    [['-p', 'abc'], '-p'],
    [['-p', '0'], '-p'],
    [['--dbnum', '-1'], '--dbnum'],
    [['--duration', 'soon'], '--duration'],
    [['--duration', '-1'], '--duration'],
    [['--rate', 'fast'], '--rate'],
    [['--warmup', 'x'], '--warmup'],
    [['--timeout', 'soon'], '--timeout'],
    [['--timeout', '-1'], '--timeout'],
  ])('%j', async (args, flag) => {
    const err = await usageError('-t', 'get', ...args);
    expect(err.exitCode).toBe(2);
    expect(err.code).toBe('ERR_USAGE');
    expect(err.message).toContain(flag);
    expect(err.message).toContain(`"${args[1]}"`);
  });

  it('numbers may use _ separators: -n 1_000_000', async () => {
    expect((await plan('-t', 'get', '-n', '1_000_000')).cells![0]!.requests).toBe(1_000_000);
  });

  // Once a bug: -p had no upper bound, so -p 70000 failed only at connect time with exit code 1
  // ("Port should be >= 0 and < 65536") instead of a usage error (exit 2).
  it('-p 70000 is a usage error', async () => {
    const err = await usageError('-t', 'get', '-p', '70000');
    expect(err.exitCode).toBe(2);
  });
});
