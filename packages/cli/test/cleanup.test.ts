import type { LaunchedServer } from '@redis-benchdb/engine';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  client,
  describeResult,
  type RunningCli,
  runCli,
  spawnCli,
  testServer,
  waitFor,
} from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

// How a run ends (SIGTERM, SIGHUP, two Ctrl-C, SIGKILL) and the `cleanup` command, against real
// redis-servers and the built CLI. The server's DEBUG DIGEST (a hash of every key, its type, value
// and whether it has a TTL) must be what it was before the run, after every way a run can end.

cliFileHooks({ servers: 'test' });

/** Keys of every type, some with a TTL, some named like the runner's own but with no marker. */
async function seed(redis: Redis): Promise<void> {
  await redis.set('plain', 'value');
  await redis.set('with-ttl', 'value', 'EX', 3600);
  await redis.rpush('list', 'a', 'b', 'c');
  await redis.sadd('set', 'm1', 'm2');
  await redis.zadd('zset', 1, 'one', 2, 'two');
  await redis.hset('hash', { f: 'v', g: 'w' });
  await redis.expire('hash', 3600);
  await redis.xadd('stream', '1-1', 'field', 'value');
  await redis.pfadd('hll', 'a', 'b', 'c');
  await redis.setbit('bitmap', 7, 1);
  await redis.geoadd('geo', 13.361389, 38.115556, 'Palermo');
  // Named like a run's keys, but no run marked these prefixes: nothing may touch them.
  await redis.set('rbdb:x:y', 'not ours');
  await redis.set('rbdb:abcdef:foo', 'no marker', 'EX', 3600);
  await redis.set('key:__rand_int__', 'from redis-benchmark');
  await redis.set('rbdb:aaaaaa:__run__', 'a string, not a marker');
  await redis.hset('rbdb:bbbbbb:__run__', { runId: 'cccccc', runner: 'redis-benchdb 0.0.0' });
  await redis.set('rbdb:bbbbbb:data', 'under a marker that names another run');
}

const SEEDED = 16;

async function digest(redis: Redis): Promise<string> {
  return String(await redis.call('DEBUG', 'DIGEST'));
}

/** A server with DEBUG DIGEST enabled, the seed keys, and its digest. */
async function seededServer(): Promise<{ server: LaunchedServer; redis: Redis; before: string }> {
  const server = await testServer({ config: ['enable-debug-command yes'] });
  const redis = await client(server);
  await seed(redis);
  expect(await redis.dbsize()).toBe(SEEDED);
  return { server, redis, before: await digest(redis) };
}

/** A long SET run; resolves once it has written `keys` keys of its own. */
async function startRun(server: LaunchedServer, redis: Redis, keys: number, extra: string[] = []) {
  const cli = spawnCli([
    'run',
    '-p',
    String(server.port),
    '-t',
    'set',
    '-r',
    '1000000',
    '-c',
    '10',
    '--duration',
    '60',
    ...extra,
  ]);
  await waitFor(
    async () => {
      if (cli.child.exitCode !== null) throw new Error(`the run ended early:\n${cli.stderr()}`);
      return (await redis.dbsize()) > SEEDED + keys;
    },
    () => `the run to write ${keys} keys (stderr so far: ${cli.stderr()})`,
  );
  return cli;
}

/** The run's prefix, from its start line. */
function prefixOf(cli: RunningCli | { stderr: string }): string {
  const text = typeof cli.stderr === 'string' ? cli.stderr : cli.stderr();
  const m = /keys under (rbdb:[0-9a-f]{6}:)\*/.exec(text);
  if (!m) throw new Error(`no prefix in:\n${text}`);
  return m[1]!;
}

/** POSIX shell words, as the hints quote them: bare words and '...' with '\'' inside. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (const m of line.matchAll(re)) words.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!);
  return words;
}

describe('signals', () => {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal} stops the run, removes its keys and exits ${code}`, async () => {
      const { server, redis, before } = await seededServer();
      const cli = await startRun(server, redis, 1000);
      cli.child.kill(signal);
      const r = await cli.done;
      expect(r.code, describeResult(r)).toBe(code);
      expect(r.stderr).toContain(`interrupted (${signal})`);
      expect(r.stderr).toMatch(new RegExp(`removed \\d+ keys under ${prefixOf(r)}\\*`));
      expect(r.stdout).toMatch(/^SET: .*INCOMPLETE/);
      expect(await digest(redis)).toBe(before);
    });
  }

  it('a second Ctrl-C during cleanup stops it, says what is left and how to remove it; that command removes the rest', async () => {
    const { server, redis, before } = await seededServer();
    // More than one SCAN batch (5,000) of keys, so that a stopped cleanup leaves some.
    const cli = await startRun(server, redis, 20_000);
    const prefix = prefixOf(cli);
    // Writes wait while the server is paused: the cleanup's first UNLINK cannot finish before the
    // second Ctrl-C has arrived, however busy the machine is.
    await redis.call('CLIENT', 'PAUSE', '60000', 'WRITE');
    cli.child.kill('SIGINT');
    await waitFor(() => cli.stderr().includes('interrupted (SIGINT)'), 'the first interrupt message');
    cli.child.kill('SIGINT');
    await waitFor(() => cli.stderr().includes('stopping the cleanup'), 'the second interrupt message');
    await redis.call('CLIENT', 'UNPAUSE');
    const r = await cli.done;
    expect(r.code, describeResult(r)).toBe(130);
    const m = new RegExp(
      `the cleanup was stopped: ([\\d,]+) keys remain under ${prefix.replace(/[$]/g, '\\$&')}\\*; remove them with: (.*)`,
    ).exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    const left = Number(m![1]!.replace(/,/g, ''));
    expect(left).toBeGreaterThan(0);
    // The count is what is there: the run's keys but its marker.
    expect(await redis.dbsize()).toBe(SEEDED + left + 1);
    const words = shellWords(m![2]!);
    expect(words).toContain('cleanup');
    expect(words.join(' ')).toContain(`-p ${server.port} --prefix ${prefix} --yes`);
    const again = await runCli([], { command: words });
    expect(again.code, describeResult(again)).toBe(0);
    expect(again.stdout).toContain(`removed ${left.toLocaleString('en-US')} keys under ${prefix}*`);
    expect(await digest(redis)).toBe(before);
  });
});

describe('the cleanup command', () => {
  it('after a SIGKILL: run mentions the leftovers, cleanup lists them, asks for --yes, then removes them', async () => {
    const { server, redis, before } = await seededServer();
    const port = String(server.port);
    const killed = await startRun(server, redis, 1000);
    const prefix = prefixOf(killed);
    killed.child.kill('SIGKILL');
    await killed.done;
    const left = (await redis.dbsize()) - SEEDED - 2; // but the marker and the alive key

    const dry = await runCli(['cleanup', '-p', port, '--dry-run']);
    expect(dry.code, describeResult(dry)).toBe(0);
    const lines = dry.stdout.trimEnd().split('\n');
    // One line: only the marked prefix, never rbdb:x:, rbdb:abcdef: or a marker naming another run.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^${prefix}\\*  ${left.toLocaleString('en-US')} keys  redis-benchdb [\\d.]+, pid ${killed.child.pid} on `,
      ),
    );

    // The next run says what is there before it starts, and how to remove it.
    const next = await runCli(['run', '-p', port, '-t', 'get', '-n', '1000']);
    expect(next.code, describeResult(next)).toBe(0);
    expect(next.stderr).toMatch(
      new RegExp(
        `1 earlier run left ${left.toLocaleString('en-US')} keys here \\(${prefix}\\); .* cleanup -h 127\\.0\\.0\\.1 -p ${port} removes them`,
      ),
    );
    expect(next.stderr.indexOf('earlier run left')).toBeLessThan(next.stderr.indexOf('keys under rbdb:'));

    // Not on a terminal: it lists, then asks for --yes.
    const unsure = await runCli(['cleanup', '-p', port]);
    expect(unsure.code, describeResult(unsure)).toBe(2);
    expect(unsure.stdout).toContain(prefix);
    expect(unsure.stderr).toContain('--yes');
    expect(await redis.dbsize()).toBe(SEEDED + left + 2);

    const done = await runCli(['cleanup', '-p', port, '--yes']);
    expect(done.code, describeResult(done)).toBe(0);
    expect(done.stdout).toContain(`removed ${left.toLocaleString('en-US')} keys under ${prefix}*`);
    expect(await digest(redis)).toBe(before);

    const nothing = await runCli(['cleanup', '-p', port, '--yes']);
    expect(nothing.stdout).toContain('nothing to remove');
    expect(await digest(redis)).toBe(before);
  });

  it('skips a run that is still going unless --force; the run then removes its own keys', async () => {
    const { server, redis, before } = await seededServer();
    const port = String(server.port);
    const live = await startRun(server, redis, 1000);
    const prefix = prefixOf(live);
    const r = await runCli(['cleanup', '-p', port, '--yes']);
    expect(r.code, describeResult(r)).toBe(0);
    expect(r.stdout).toContain(`${prefix}*`);
    expect(r.stdout).toContain('still running: skipped');
    expect(r.stdout).not.toContain('removed');
    expect(await redis.exists(`${prefix}__run__`)).toBe(1);
    live.child.kill('SIGINT');
    const end = await live.done;
    expect(end.code, describeResult(end)).toBe(130);
    expect(await digest(redis)).toBe(before);
  });

  it('refuses a --prefix with keys but no marker, and removes nothing', async () => {
    const { server, redis, before } = await seededServer();
    const r = await runCli(['cleanup', '-p', String(server.port), '--prefix', 'rbdb:abcdef:', '--yes']);
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stderr).toContain('no run marker');
    const bad = await runCli(['cleanup', '-p', String(server.port), '--prefix', 'rbdb:x:', '--yes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --prefix');
    expect(await digest(redis)).toBe(before);
  });

  it('a run that ends normally leaves the digest as it was', async () => {
    const { server, redis, before } = await seededServer();
    const r = await runCli([
      'run',
      '-p',
      String(server.port),
      '-t',
      'set,lpush,hset,sadd,zadd,xadd',
      '-n',
      '2000',
      '-r',
      '100',
    ]);
    expect(r.code, describeResult(r)).toBe(0);
    expect(await digest(redis)).toBe(before);
  });
});
